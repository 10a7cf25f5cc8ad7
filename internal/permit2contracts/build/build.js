// Rebuilds ../Permit2.bin, ../x402ExactPermit2Proxy.bin, ../x402UptoPermit2Proxy.bin,
// ../AuthCaptureEscrow.bin, ../Permit2PaymentCollector.bin and their .abi.json from the published sources under ../src, with the compilers
// and settings their projects build with (../README.md), and prints each creation
// code's size and SHA-256. Run from this directory: npm ci && node build.js
"use strict";
const fs = require("fs");
const path = require("path");
const crypto = require("crypto");

const dir = path.join(__dirname, "..");

// Each project's Foundry settings, written as solc's standard JSON: Permit2's
// foundry.toml (solc 0.8.17, via IR, 1 000 000 runs, no metadata hash), the
// x402 contracts' foundry.toml (solc 0.8.28, 200 runs, no CBOR metadata).
const jobs = [
  {
    solc: "solc-0.8.17",
    root: "src/permit2",
    remappings: ["solmate/=lib/solmate/src/"],
    settings: { optimizer: { enabled: true, runs: 1000000 }, viaIR: true, evmVersion: "london", metadata: { bytecodeHash: "none" } },
    contracts: [{ file: "src/Permit2.sol", name: "Permit2" }],
  },
  {
    solc: "solc-0.8.28",
    root: "src/x402",
    remappings: ["@openzeppelin/contracts/=lib/openzeppelin-contracts/contracts/"],
    settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: "cancun", metadata: { appendCBOR: false, bytecodeHash: "none" } },
    contracts: [
      { file: "src/x402ExactPermit2Proxy.sol", name: "x402ExactPermit2Proxy" },
      { file: "src/x402UptoPermit2Proxy.sol", name: "x402UptoPermit2Proxy" },
    ],
  },
  {
    // base/commerce-payments' deploy profile (via IR, 100 000 runs,
    // cancun); its foundry.toml pins no compiler, its sources ask ^0.8.28.
    solc: "solc-0.8.28",
    root: "src/commerce-payments",
    remappings: ["@openzeppelin/contracts/=lib/openzeppelin-contracts/contracts/", "solady/=lib/solady/src/", "permit2/=lib/permit2/src/"],
    settings: { optimizer: { enabled: true, runs: 100000 }, viaIR: true, evmVersion: "cancun", metadata: { appendCBOR: false, bytecodeHash: "none" } },
    contracts: [
      { file: "src/AuthCaptureEscrow.sol", name: "AuthCaptureEscrow" },
      { file: "src/collectors/Permit2PaymentCollector.sol", name: "Permit2PaymentCollector" },
    ],
  },
];

for (const job of jobs) {
  const solc = require(job.solc);
  const root = path.join(dir, job.root);
  const sources = {};
  for (const c of job.contracts) sources[c.file] = { content: fs.readFileSync(path.join(root, c.file), "utf8") };
  const outputSelection = {};
  for (const c of job.contracts) outputSelection[c.file] = { [c.name]: ["abi", "evm.bytecode.object"] };
  const input = { language: "Solidity", sources, settings: { ...job.settings, remappings: job.remappings, outputSelection } };
  // Imports resolve inside the job's root only, so the build reads nothing
  // but the committed sources.
  const findImports = (p) => {
    const full = path.join(root, p);
    if (!full.startsWith(root + path.sep) || !fs.existsSync(full)) return { error: "not found: " + p };
    return { contents: fs.readFileSync(full, "utf8") };
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports }));
  for (const e of out.errors || []) console.error(e.formattedMessage);
  if ((out.errors || []).some((e) => e.severity === "error")) process.exit(1);
  for (const c of job.contracts) {
    const k = out.contracts[c.file][c.name];
    fs.writeFileSync(path.join(dir, c.name + ".bin"), k.evm.bytecode.object + "\n");
    fs.writeFileSync(path.join(dir, c.name + ".abi.json"), JSON.stringify(k.abi, null, 2) + "\n");
    const code = Buffer.from(k.evm.bytecode.object, "hex");
    console.log(c.name + ": solc " + solc.version() + ", " + code.length + " bytes, SHA-256 " +
      crypto.createHash("sha256").update(code).digest("hex"));
  }
}

// With the x402 project's published initCode of the exact proxy (its
// script/data/exact-proxy-initcode.hex) as argument, the exact proxy is
// compiled once more with solc's default metadata (an IPFS hash, CBOR) and
// the two are compared byte for byte: they differ only in the 32 bytes of
// that hash, which names the build environment's metadata, not the code.
if (process.argv[2]) {
  const solc = require("solc-0.8.28");
  const job = jobs[1];
  const root = path.join(dir, job.root);
  const file = "src/x402ExactPermit2Proxy.sol";
  const input = { language: "Solidity", sources: { [file]: { content: fs.readFileSync(path.join(root, file), "utf8") } },
    settings: { ...job.settings, metadata: { bytecodeHash: "ipfs" }, remappings: job.remappings,
      outputSelection: { [file]: { x402ExactPermit2Proxy: ["evm.bytecode.object"] } } } };
  const out = JSON.parse(solc.compile(JSON.stringify(input), { import: (p) => ({ contents: fs.readFileSync(path.join(root, p), "utf8") }) }));
  const ours = Buffer.from(out.contracts[file].x402ExactPermit2Proxy.evm.bytecode.object, "hex");
  const published = Buffer.from(fs.readFileSync(process.argv[2], "utf8").trim().replace(/^0x/, ""), "hex");
  let differ = 0, first = -1, last = -1;
  for (let i = 0; i < ours.length && i < published.length; i++) {
    if (ours[i] !== published[i]) { differ++; if (first < 0) first = i; last = i; }
  }
  console.log("exact proxy with metadata: " + ours.length + " bytes (+ 32 of constructor argument), published " + published.length +
    "; " + differ + " bytes differ, from " + first + " to " + last);
}
