// Drives termsgate's MCP server with the official TypeScript SDK client, as
// an agent would: list the tools and compile every schema, confirm → sign →
// finish, a hash-mismatch decline, a decline that carries moved, and a
// payment above the server's spend limit, each read through callTool.
// interop_test.go writes the configuration (CONFIG, a JSON file) and runs
// this once per transport and protocol version; any failed check exits 1.
//
//   node driver.mjs   (env CONFIG=path, TRANSPORT=stdio|http, PROTOCOL=2025-06-18|2025-11-25)

import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";

const config = JSON.parse(readFileSync(process.env.CONFIG, "utf8"));
const transportName = process.env.TRANSPORT;
const protocol = process.env.PROTOCOL;

function check(ok, what, detail) {
  if (!ok) {
    console.error(`FAIL [${transportName} ${protocol}] ${what}: ${JSON.stringify(detail)}`);
    process.exit(1);
  }
  console.log(`ok   [${transportName} ${protocol}] ${what}`);
}

// The SDK's client always offers its latest protocol version; to speak an
// older one, rewrite the version it offers in initialize. The server answers
// with the version it agreed to, which the client then uses.
function atVersion(transport, version) {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if (message.method === "initialize") {
      message = { ...message, params: { ...message.params, protocolVersion: version } };
    }
    return send(message, options);
  };
  // Record the version the server answered initialize with.
  let handler;
  Object.defineProperty(transport, "onmessage", {
    get: () => handler,
    set: (h) => {
      handler = (message, extra) => {
        if (message.result?.protocolVersion) negotiated = message.result.protocolVersion;
        return h?.(message, extra);
      };
    },
  });
  return transport;
}

let negotiated;

function newTransport() {
  if (transportName === "stdio") {
    return new StdioClientTransport({
      command: config.binary,
      args: config.args,
      env: config.env,
      stderr: "inherit",
    });
  }
  return new StreamableHTTPClientTransport(new URL(config.url));
}

async function sign(request) {
  const r = await fetch(config.signer, { method: "POST", body: JSON.stringify(request) });
  check(r.ok, "the wallet signed", r.status);
  return r.json();
}

const client = new Client({ name: "termsgate-interop", version: "1.0.0" });
await client.connect(atVersion(newTransport(), protocol));
check(client.getServerVersion()?.name === "termsgate", "initialized", client.getServerVersion());
check(negotiated === protocol, `protocol ${protocol} agreed`, negotiated);

// Every published schema compiles with the SDK's own validator.
const { tools } = await client.listTools();
const validator = new AjvJsonSchemaValidator();
for (const tool of tools) {
  validator.getValidator(tool.inputSchema);
  check(tool.outputSchema?.type === "object", `${tool.name}: output schema is an object`, tool.outputSchema);
  validator.getValidator(tool.outputSchema);
}
const names = tools.map((t) => t.name);
for (const want of ["atr_read", "atr_confirm", "atr_finish", "atr_check", "atr_transact"]) {
  check(names.includes(want), `tool ${want} listed`, names);
}

// atr_confirm → sign → atr_finish.
const confirmed = await client.callTool({
  name: "atr_confirm",
  arguments: { pairing: config.x402.pairing, document: config.x402.document, account: config.x402.account },
});
check(!confirmed.isError, "atr_confirm succeeded", confirmed);
const c = confirmed.structuredContent;
check(c.atrHash === config.x402.atrHash && c.request?.kind === "eip712", "atr_confirm returned the request for the ATR's hash", c);
check(c.summary?.amount === "10000" && c.summary?.units === "0.01", "atr_confirm summarized the request", c.summary);
check(Array.isArray(c.limits?.limits), "atr_confirm stated the limits", c.limits);
const finished = await client.callTool({
  name: "atr_finish",
  arguments: { pairing: config.x402.pairing, atr: c.atr.base64, chosen: c.chosen, signature: await sign(c.request) },
});
check(!finished.isError, "atr_finish succeeded", finished);
const f = finished.structuredContent;
check(f.atrHash === c.atrHash && f.header?.name === "PAYMENT-SIGNATURE" && f.header.value.length > 0, "atr_finish returned the header to send", f);

// The same offer given as the seller's header text.
const fromHeader = await client.callTool({
  name: "atr_read",
  arguments: { pairing: config.x402.pairing, header: config.x402.header },
});
check(!fromHeader.isError && fromHeader.structuredContent.atrHash === config.x402.atrHash, "atr_read took the PAYMENT-REQUIRED header", fromHeader);

// A hash mismatch: isError, the code and detail readable through callTool.
const mismatch = await client.callTool({
  name: "atr_confirm",
  arguments: { pairing: config.x402.pairing, document: config.mismatch, account: config.x402.account },
});
check(mismatch.isError === true, "hash mismatch is an error result", mismatch);
check(mismatch.structuredContent?.decline?.code === "hash-mismatch" && typeof mismatch.structuredContent.decline.detail === "string",
  "hash mismatch read as decline.code and decline.detail", mismatch.structuredContent);

// A decline that carries moved: a push payment whose landed receipt does
// not carry H. Value already left, so the decline keeps the payment.
const push = await client.callTool({
  name: "atr_confirm",
  arguments: { pairing: config.push.pairing, document: config.push.document, account: config.push.account },
});
check(!push.isError && push.structuredContent.request?.broadcast === true, "atr_confirm of a push payment", push);
const p = push.structuredContent;
const moved = await client.callTool({
  name: "atr_finish",
  arguments: { pairing: config.push.pairing, atr: p.atr.base64, chosen: p.chosen, signature: config.push.answer },
});
check(moved.isError === true && moved.structuredContent?.decline?.code === "signed-not-bound", "a push read-back failure is declined", moved);
check(moved.structuredContent.moved?.atrHash === p.atrHash && moved.structuredContent.moved.signed !== undefined, "the decline carries moved", moved.structuredContent);

// The server's wallet refuses what its limits do not allow, signing nothing.
const huge = await client.callTool({
  name: "atr_transact",
  arguments: { pairing: config.x402.pairing, document: config.huge },
});
check(huge.isError === true && huge.structuredContent?.decline?.code === "no-payable-option" &&
  huge.structuredContent.decline.detail.startsWith("policy/amount-above-maximum: 1000000000000 of eip155:84532 "),
  "atr_transact above the limit is declined", huge.structuredContent);

await client.close();
