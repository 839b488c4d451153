// What the window records (issue 24 item 8) cost an agent loop: bytes on disk per request, segment
// writes (coalesced off the turn's path), the record's build time on the turn's path, and the
// encoding time of a full segment (in the background).
//
//   npm run build && node tools/window-record-cost.mjs [turns=1000]
//
// Each turn: a user message, a window (budget 14,000, gpt-4o-mini, 3 tools), a tool call and its
// result, a second window, an answer — through context-persistent on JSONL with fsync "always".
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeWindowSegment } from "../contracts/dist/index.js";
import { Coordinator } from "../core/dist/index.js";
import { ToolRecords, windowRecord } from "../modules/context-manager/dist/window-record.js";
import { mount } from "../modules/context-persistent/dist/index.js";
import { JsonlStore } from "../modules/stores/dist/index.js";

const TURNS = Number(process.argv[2] ?? 1_000);
const tool = (name) => ({ type: "function", function: { name, description: `the ${name} tool`, parameters: { type: "object", properties: { path: { type: "string" } } } } });
const TOOLS = [tool("read_file"), tool("write_file"), tool("search")];

// Counts the record segments the store writes, and their bytes.
let segmentWrites = 0;
let bytesWritten = 0;
const write = JsonlStore.prototype.writeAttachment;
JsonlStore.prototype.writeAttachment = function (sessionId, name, text, scope) {
  if (name.startsWith("windows-")) {
    segmentWrites++;
    bytesWritten += Buffer.byteLength(text);
  }
  return write.call(this, sessionId, name, text, scope);
};

const dir = mkdtempSync(join(tmpdir(), "window-record-cost-"));
try {
  const coordinator = new Coordinator({ sessionId: "cost" });
  const context = await mount(coordinator, { storagePath: dir, model: "gpt-4o-mini", fsync: "always" });
  context.setTools(TOOLS);
  let requests = 0;
  let requestMs = 0;
  const ask = async () => {
    const started = performance.now();
    await context.getMessagesForRequest(14_000);
    requestMs += performance.now() - started;
    requests++;
  };
  for (let k = 0; k < TURNS; k++) {
    await context.addMessage({ role: "user", content: `question ${k} ${"about the files ".repeat(30)}` });
    await ask();
    await context.addMessage({ role: "assistant", content: "", tool_calls: [{ id: `c${k}`, type: "function", function: { name: "read_file", arguments: "{}" } }] });
    await context.addMessage({ role: "tool", tool_call_id: `c${k}`, content: "export const x = 1;\n".repeat(40) });
    await ask();
    await context.addMessage({ role: "assistant", content: `answer ${k}` });
  }
  // The record's own cost on the turn's path, over the last window (the whole history behind it).
  const last = context.explainLastWindow();
  const history = await context.getMessages();
  const counter = { encoding: last.encoding, countTools: () => 1 };
  const tools = new ToolRecords().of(TOOLS, counter);
  const builds = 20_000;
  let started = performance.now();
  for (let i = 0; i < builds; i++) windowRecord({ history, report: last.report, model: last.model, counter, tools: TOOLS, strategies: ["window"], explanation: undefined }, tools);
  const buildUs = ((performance.now() - started) / builds) * 1_000;
  const segment = context.windowRecords().slice(-64);
  started = performance.now();
  for (let i = 0; i < 500; i++) encodeWindowSegment(segment);
  const encodeMs = (performance.now() - started) / 500;
  const runs = context.windowRecords().at(-1).runs.length;
  await coordinator.cleanup();
  const files = readdirSync(dir).filter((f) => f.startsWith("cost.windows-"));
  const recordBytes = files.reduce((n, f) => n + statSync(join(dir, f)).size, 0);
  const historyBytes = statSync(join(dir, "cost.jsonl")).size;
  console.log(`${TURNS} turns, ${requests} requests, ${history.length} stored messages`);
  console.log(`records on disk: ${recordBytes} bytes in ${files.length} segments = ${(recordBytes / requests).toFixed(0)} bytes per request (the history: ${(historyBytes / requests).toFixed(0)} bytes per request)`);
  console.log(`segment writes: ${segmentWrites} for ${requests} requests, ${(bytesWritten / requests).toFixed(0)} bytes written per request`);
  console.log(`record build on the turn's path: ${buildUs.toFixed(1)} us (${runs} runs in the last record); a 64-record segment encodes in ${encodeMs.toFixed(2)} ms (background)`);
  console.log(`getMessagesForRequest mean: ${(requestMs / requests).toFixed(3)} ms`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
