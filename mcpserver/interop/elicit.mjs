// Approval by the human under the official TypeScript SDK's client: a
// client that declares elicitation answers termsgate's elicitation/create
// questions with decline, cancel, then accept, and a second client that
// declares none is asked nothing. The server runs with --confirm-above
// below the offer's amount, so every atr_transact is put to the human.
// interop_test.go writes the configuration (CONFIG) and runs this once per
// transport and protocol version; any failed check exits 1.
//
//   node elicit.mjs   (env CONFIG=path, TRANSPORT=stdio|http, PROTOCOL=2025-06-18|2025-11-25)

import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const config = JSON.parse(readFileSync(process.env.CONFIG, "utf8"));
const transportName = process.env.TRANSPORT;
const protocol = process.env.PROTOCOL;

function check(ok, what, detail) {
  if (!ok) {
    console.error(`FAIL [elicit ${transportName} ${protocol}] ${what}: ${JSON.stringify(detail)}`);
    process.exit(1);
  }
  console.log(`ok   [elicit ${transportName} ${protocol}] ${what}`);
}

// As in driver.mjs: the SDK offers its latest version; rewrite it to speak
// the one under test.
function atVersion(transport, version) {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if (message.method === "initialize") {
      message = { ...message, params: { ...message.params, protocolVersion: version } };
    }
    return send(message, options);
  };
  return transport;
}

function newTransport() {
  if (transportName === "stdio") {
    return new StdioClientTransport({ command: config.binary, args: config.args, env: config.env, stderr: "inherit" });
  }
  return new StreamableHTTPClientTransport(new URL(config.url));
}

// The human: each question is recorded and answered with the next action.
const questions = [];
const answers = [];
const human = new Client({ name: "termsgate-interop-human", version: "1.0.0" }, { capabilities: { elicitation: {} } });
human.setRequestHandler(ElicitRequestSchema, async (request) => {
  questions.push(request.params);
  return { action: answers.shift() ?? "decline" };
});
await human.connect(atVersion(newTransport(), protocol));

const offer = { pairing: config.x402.pairing, document: config.x402.document };
const units = config.x402.amount;

for (const [action, detail] of [["decline", "mcp/human-declined"], ["cancel", "mcp/human-cancelled"]]) {
  answers.push(action);
  const before = questions.length;
  const r = await human.callTool({ name: "atr_transact", arguments: offer });
  check(questions.length === before + 1, `${action}: the human was asked once`, questions.length - before);
  const q = questions[before];
  check(typeof q.message === "string" && q.message.includes(units) && q.message.includes(config.x402.atrHash) &&
    q.message.includes(config.x402.payTo) && q.message.includes(config.x402.link),
    `${action}: the question names the amount, H, the payee and the terms' link`, q.message);
  check(q.requestedSchema?.type === "object", `${action}: the question is a form`, q.requestedSchema);
  check(r.isError === true && r.structuredContent?.decline?.code === "no-payable-option" &&
    r.structuredContent.decline.detail.startsWith(detail) && r.structuredContent.signed === undefined,
    `${action}: nothing signed, declined with ${detail}`, r.structuredContent);
}

answers.push("accept");
const accepted = await human.callTool({ name: "atr_transact", arguments: offer });
check(questions.length === 3, "accept: the human was asked once more", questions.length);
const signed = accepted.structuredContent?.signed;
check(!accepted.isError && typeof signed?.payload?.signature === "string" && signed.payload.signature.length === 132 &&
  signed.payload.authorization?.nonce === config.x402.atrHash,
  "accept: the payment is signed with H as its nonce", accepted.structuredContent);
await human.close();

// A client without elicitation keeps today's behaviour: --confirm-above
// asks nothing of it, and its limits alone decide.
const plain = new Client({ name: "termsgate-interop-plain", version: "1.0.0" });
await plain.connect(atVersion(newTransport(), protocol));
const direct = await plain.callTool({ name: "atr_transact", arguments: offer });
check(!direct.isError && direct.structuredContent?.signed?.payload?.authorization?.nonce === config.x402.atrHash,
  "a client without elicitation is asked nothing and paid within its limits", direct.structuredContent);
await plain.close();
