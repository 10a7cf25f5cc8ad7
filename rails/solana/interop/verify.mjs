// Reads one JSON request on stdin, {payload, requirements, slot}, and runs
// @x402/svm's own upto facilitator verify (UptoSvmScheme.verify) on the
// payment: the payload's field and type checks, the open transaction's
// decoding, instruction layout, accounts, memo, channel address and the
// payer's Ed25519 signature are all the package's.
//
// The facilitator reaches the chain only through its signer object, so that
// object is stood in here, with the least that is true of a chain on which
// this payment is fresh:
//   - getAddresses: the option's extra.feePayer (the facilitator is the fee
//     payer the option names);
//   - getSigner: a signer object for that address that refuses to sign
//     (verify only looks it up);
//   - getSlot: the finalized slot the request gives (the slot the buyer read
//     its openSlot from, as its RPC would answer).
// Every other chain read (getAccountInfo, getLatestBlockhash,
// simulateTransaction, ...) throws: verify does not make them in 2.27.0, and
// the answer lists every call made, so the test sees it if one is.
// Writes {isValid, invalidReason, invalidMessage, calls} on stdout.
import { UptoSvmScheme } from "@x402/svm/upto/facilitator";

const input = JSON.parse(await new Promise((resolve) => {
  let s = "";
  process.stdin.on("data", (d) => (s += d));
  process.stdin.on("end", () => resolve(s));
}));
const feePayer = input.requirements.extra.feePayer;
const calls = [];
const refuse = (name) => async () => {
  calls.push(name);
  throw new Error(`${name}: not stood in (verify only)`);
};
const signer = {
  getAddresses: () => [feePayer],
  getSigner: (address) => {
    calls.push("getSigner");
    return {
      address,
      signTransactions: refuse("signTransactions"),
      signMessages: refuse("signMessages"),
    };
  },
  getSlot: async () => {
    calls.push("getSlot");
    return BigInt(input.slot);
  },
  getAccountInfo: refuse("getAccountInfo"),
  getLatestBlockhash: refuse("getLatestBlockhash"),
  getProgramAccounts: refuse("getProgramAccounts"),
  signTransaction: refuse("signTransaction"),
  simulateTransaction: refuse("simulateTransaction"),
  sendTransaction: refuse("sendTransaction"),
  confirmTransaction: refuse("confirmTransaction"),
};
const scheme = new UptoSvmScheme(signer);
const r = await scheme.verify(input.payload, input.requirements);
process.stdout.write(JSON.stringify({
  isValid: r.isValid,
  invalidReason: r.invalidReason ?? null,
  invalidMessage: r.invalidMessage ?? null,
  calls,
}) + "\n");
