#!/usr/bin/env node
// The "done when" figure for a kept fitter: over a history of N messages (default 10,000),
// one new message per call, the median (and p90, max) cost of fitter.fit(messages) per call — in
// each format. Run after `npm run build`:
//
//   node modules/window/test/fit-window-bench.mjs [messages=10000] [calls=1000] [budget=100000]
//
// The history is an agent loop's: a user prompt, an assistant tool call, its result, an answer;
// results of ~60 words, so the window (the budget) holds a few thousand of the messages.
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { createWindowFitter } from "@amplifier-ts/window";

const [total = 10_000, calls = 1_000, budget = 100_000] = process.argv.slice(2).map(Number);
const words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"];
const text = (seed, n) => Array.from({ length: n }, (_, i) => words[(seed * 7 + i * 13) % words.length]).join(" ");

/** The i-th message of the conversation (after the system message), in each format. */
const writers = {
  "openai-chat": (i) => {
    const t = i >> 2;
    switch (i & 3) {
      case 0: return { role: "user", content: `question ${t}: ${text(t, 8)}` };
      case 1: return { role: "assistant", content: null, tool_calls: [{ id: `c${t}`, type: "function", function: { name: "read_file", arguments: `{"path":"/f/${t}"}` } }] };
      case 2: return { role: "tool", tool_call_id: `c${t}`, content: text(t + 1, 60) };
      default: return { role: "assistant", content: `answer ${t}: ${text(t + 2, 12)}` };
    }
  },
  "ai-sdk": (i) => {
    const t = i >> 2;
    switch (i & 3) {
      case 0: return { role: "user", content: [{ type: "text", text: `question ${t}: ${text(t, 8)}` }] };
      case 1: return { role: "assistant", content: [{ type: "tool-call", toolCallId: `c${t}`, toolName: "read_file", input: { path: `/f/${t}` } }] };
      case 2: return { role: "tool", content: [{ type: "tool-result", toolCallId: `c${t}`, toolName: "read_file", output: { type: "text", value: text(t + 1, 60) } }] };
      default: return { role: "assistant", content: [{ type: "text", text: `answer ${t}: ${text(t + 2, 12)}` }] };
    }
  },
  anthropic: (i) => {
    const t = i >> 2;
    switch (i & 3) {
      case 0: return { role: "user", content: `question ${t}: ${text(t, 8)}` };
      case 1: return { role: "assistant", content: [{ type: "tool_use", id: `c${t}`, name: "read_file", input: { path: `/f/${t}` } }] };
      case 2: return { role: "user", content: [{ type: "tool_result", tool_use_id: `c${t}`, content: text(t + 1, 60) }] };
      default: return { role: "assistant", content: [{ type: "text", text: `answer ${t}: ${text(t + 2, 12)}` }] };
    }
  },
  "openai-responses": (i) => {
    const t = i >> 2;
    switch (i & 3) {
      case 0: return { type: "message", role: "user", content: `question ${t}: ${text(t, 8)}` };
      case 1: return { type: "function_call", call_id: `c${t}`, name: "read_file", arguments: `{"path":"/f/${t}"}` };
      case 2: return { type: "function_call_output", call_id: `c${t}`, output: text(t + 1, 60) };
      default: return { type: "message", role: "assistant", content: [{ type: "output_text", text: `answer ${t}: ${text(t + 2, 12)}` }] };
    }
  },
  langchain: (i) => {
    const t = i >> 2;
    switch (i & 3) {
      case 0: return new HumanMessage(`question ${t}: ${text(t, 8)}`);
      case 1: return new AIMessage({ content: "", tool_calls: [{ id: `c${t}`, name: "read_file", args: { path: `/f/${t}` } }] });
      case 2: return new ToolMessage({ content: text(t + 1, 60), tool_call_id: `c${t}` });
      default: return new AIMessage(`answer ${t}: ${text(t + 2, 12)}`);
    }
  },
};
const systems = { "openai-chat": { role: "system", content: "Be careful." }, "ai-sdk": { role: "system", content: "Be careful." }, langchain: new SystemMessage("Be careful.") };

console.log(`fitter.fit per call, ${total} messages growing by one a call, ${calls} calls, budget ${budget} (node ${process.version})`);
for (const [format, write] of Object.entries(writers)) {
  const messages = systems[format] ? [systems[format]] : [];
  while (messages.length < total - calls) messages.push(write(messages.length));
  const fitter = createWindowFitter({ model: "gpt-4o", budget });
  let started = performance.now();
  fitter.fit(messages);
  const first = performance.now() - started;
  const times = [];
  for (let c = 0; c < calls; c++) {
    messages.push(write(messages.length));
    // An agent loop calls the model after a prompt or a result, never between a call and its result.
    started = performance.now();
    if (format !== "openai-responses" || messages.length % 4 !== 2) fitter.fit(messages);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(3);
  console.log(`${format.padEnd(17)} first call ${first.toFixed(0).padStart(5)} ms   per call: median ${at(0.5)} ms, p90 ${at(0.9)} ms, max ${at(1 - 1e-9)} ms   (${messages.length} messages)`);
}
