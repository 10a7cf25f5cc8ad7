// Reads one JSON request on stdin, {scheme, payload, requirements,
// facilitator}, and verifies the payment with @x402/evm's own facilitator
// scheme (exact or upto): every field check and the EIP-712 signature
// recovery are the package's. Only the chain is stood in for: the asset has
// code, the payer has none (an EOA, so the signature is checked with
// ECDSA), and the settle simulation succeeds. Writes {isValid,
// invalidReason} on stdout.
import { ExactEvmScheme } from "@x402/evm/exact/facilitator";
import { UptoEvmScheme } from "@x402/evm/upto/facilitator";

const input = JSON.parse(await new Promise((resolve) => {
  let s = "";
  process.stdin.on("data", (d) => (s += d));
  process.stdin.on("end", () => resolve(s));
}));
const asset = input.requirements.asset.toLowerCase();
const signer = {
  getAddresses: () => [input.facilitator],
  getCode: async ({ address }) => (address.toLowerCase() === asset ? "0x6080" : "0x"),
  readContract: async () => 10n ** 30n,
  verifyTypedData: async () => { throw new Error("not used for an EOA"); },
  writeContract: async () => { throw new Error("verify only"); },
  sendTransaction: async () => { throw new Error("verify only"); },
  waitForTransactionReceipt: async () => { throw new Error("verify only"); },
};
const scheme = input.scheme === "upto" ? new UptoEvmScheme(signer) : new ExactEvmScheme(signer);
const r = await scheme.verify(input.payload, input.requirements);
process.stdout.write(JSON.stringify({ isValid: r.isValid, invalidReason: r.invalidReason ?? null }) + "\n");
