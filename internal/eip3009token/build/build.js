// Rebuilds ../Token.bin and ../Token.abi.json from ../Token.sol with the
// solc version pinned in package.json, and prints the bytecode's SHA-256
// for ../README.md. Run from this directory: npm ci && node build.js
"use strict";
const fs = require("fs");
const path = require("path");
const crypto = require("crypto");
const solc = require("solc");

const dir = path.join(__dirname, "..");
const input = {
  language: "Solidity",
  sources: { "Token.sol": { content: fs.readFileSync(path.join(dir, "Token.sol"), "utf8") } },
  settings: {
    optimizer: { enabled: true, runs: 200 },
    evmVersion: "cancun",
    outputSelection: { "Token.sol": { Token: ["abi", "evm.bytecode.object"] } },
  },
};
const out = JSON.parse(solc.compile(JSON.stringify(input)));
const errors = (out.errors || []).filter((e) => e.severity === "error");
for (const e of out.errors || []) console.error(e.formattedMessage);
if (errors.length > 0) process.exit(1);
const token = out.contracts["Token.sol"].Token;
const bin = token.evm.bytecode.object + "\n";
fs.writeFileSync(path.join(dir, "Token.bin"), bin);
fs.writeFileSync(path.join(dir, "Token.abi.json"), JSON.stringify(token.abi, null, 2) + "\n");
const code = Buffer.from(token.evm.bytecode.object, "hex");
console.log("compiler: solc " + solc.version());
console.log("bytecode: " + code.length + " bytes, SHA-256 " + crypto.createHash("sha256").update(code).digest("hex"));
