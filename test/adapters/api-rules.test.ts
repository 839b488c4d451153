/**
 * The checker is itself checked: for each documented rule, a request that keeps it passes and a
 * hand-made request that breaks it is caught (api-rules.ts). A checker that let a violation through
 * would make every property test that relies on it pass for the wrong reason.
 */
import { describe, expect, it } from "vitest";
import { anthropicProblems, anthropicThinkingProblems, openAIChatProblems, openAIReasoningProblems, openAIResponsesProblems } from "./api-rules.js";

type Json = Record<string, unknown>;
const clone = <T>(v: T): T => structuredClone(v);

// --- Anthropic: extended thinking with tool use -------------------------------------------------
const thinking1 = { type: "thinking", thinking: "Let me grep for it.", signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds" };
const redacted1 = { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP" };
const thinking2 = { type: "thinking", thinking: "The match is on line 42; read it.", signature: "WaUjzkypQ2mUEVM36O2TxuC06KN8xyfbJwyem2dw3URve" };
const issued = [
  { content: [thinking1, redacted1, { type: "tool_use", id: "toolu_01", name: "grep", input: { pattern: "x" } }] },
  { content: [thinking2, { type: "tool_use", id: "toolu_02", name: "read", input: { line: 42 } }] },
];
const validAnthropic = (): Json => ({
  thinking: { type: "enabled", budget_tokens: 2048 },
  system: [{ type: "text", text: "You are terse." }],
  messages: [
    { role: "user", content: "find x" },
    { role: "assistant", content: [clone(thinking1), clone(redacted1), { type: "tool_use", id: "toolu_01", name: "grep", input: { pattern: "x" } }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_01", content: "x.ts:42" }] },
    { role: "assistant", content: [clone(thinking2), { type: "tool_use", id: "toolu_02", name: "read", input: { line: 42 } }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_02", content: "const x = 1;" }] },
  ],
});
const message = (body: Json, i: number) => (body.messages as Json[])[i]!;
const blocks = (body: Json, i: number) => message(body, i).content as Json[];

describe("Anthropic rules", () => {
  it("a valid tool loop with thinking passes, and so does leaving an older turn's thinking out whole", () => {
    expect(anthropicProblems(validAnthropic())).toEqual([]);
    expect(anthropicThinkingProblems(validAnthropic(), issued)).toEqual([]);
    const older = validAnthropic();
    (message(older, 1).content as Json[]).splice(0, 2);
    expect(anthropicProblems(older)).toEqual([]);
    expect(anthropicThinkingProblems(older, issued)).toEqual([]);
  });

  const violations: [string, (body: Json) => void, RegExp, "structure" | "issued"][] = [
    ["a tool_use without its tool_result right after", (b) => blocks(b, 4).splice(0, 1, { type: "text", text: "ok" }), /tool_use ids were found without tool_result/, "structure"],
    ["a tool_result whose tool_use is not in the previous message", (b) => (blocks(b, 2)[0]!.tool_use_id = "toolu_99"), /unexpected tool_use_id/, "structure"],
    ["a tool_result after text in its user message", (b) => blocks(b, 2).unshift({ type: "text", text: "here" }), /tool_result blocks must come first/, "structure"],
    ["roles that do not alternate", (b) => (b.messages as Json[]).splice(1, 0, { role: "user", content: "again" }), /roles must alternate/, "structure"],
    ["a thinking block without its signature", (b) => delete blocks(b, 3)[0]!.signature, /thinking blocks need thinking and signature/, "structure"],
    ["a redacted_thinking block without its data", (b) => delete blocks(b, 1)[1]!.data, /redacted_thinking needs data/, "structure"],
    ["thinking in a user message", (b) => blocks(b, 0 + 2).push(clone(thinking1)), /thinking is not allowed in a user message/, "structure"],
    ["thinking enabled and the turn in progress does not start with thinking", (b) => blocks(b, 3).shift(), /Expected `thinking` or `redacted_thinking`, but found `tool_use`/, "structure"],
    ["a thinking text altered by one character", (b) => (blocks(b, 3)[0]!.thinking = "The match is on line 43; read it."), /Invalid `signature`/, "issued"],
    ["a redacted_thinking whose data was re-encoded", (b) => (blocks(b, 1)[1]!.data = "EmwKAhgBEgy3va3pzix_LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"), /Invalid `signature`/, "issued"],
    ["an older turn's thinking sent partially (one of its two blocks)", (b) => blocks(b, 1).splice(1, 1), /sent partially/, "issued"],
    ["the turn in progress with its thinking dropped (thinking disabled in the request)", (b) => { delete b.thinking; blocks(b, 3).shift(); }, /cannot be modified or left out/, "issued"],
    ["the turn in progress with its thinking after its tool_use", (b) => blocks(b, 3).reverse(), /must come first/, "issued"],
  ];
  for (const [rule, breakIt, expected, checker] of violations) {
    it(`catches ${rule}`, () => {
      const body = validAnthropic();
      breakIt(body);
      const problems = checker === "structure" ? anthropicProblems(body) : anthropicThinkingProblems(body, issued);
      expect(problems.join("\n")).toMatch(expected);
    });
  }
});

// --- OpenAI Responses: reasoning items with the function calls they preceded ----------------------
const rs1 = { type: "reasoning", id: "rs_01", summary: [{ type: "summary_text", text: "grep first" }], encrypted_content: "gAAAAABo1" };
const rs2 = { type: "reasoning", id: "rs_02", summary: [], encrypted_content: "gAAAAABo2" };
const rs3 = { type: "reasoning", id: "rs_03", summary: [], encrypted_content: "gAAAAABo3" };
const looking = { type: "message", role: "assistant", content: [{ type: "output_text", text: "Looking." }] };
const responses = [
  [rs1, looking, rs2, { type: "function_call", call_id: "call_1", name: "grep", arguments: "{}" }],
  [rs3, { type: "function_call", call_id: "call_2", name: "read", arguments: "{}" }],
];
const validResponses = (): Json => ({
  instructions: "You are terse.",
  input: [
    { type: "message", role: "user", content: "find x" },
    clone(rs1),
    clone(looking),
    clone(rs2),
    { type: "function_call", call_id: "call_1", name: "grep", arguments: "{}" },
    { type: "function_call_output", call_id: "call_1", output: "x.ts:42" },
    clone(rs3),
    { type: "function_call", call_id: "call_2", name: "read", arguments: "{}" },
    { type: "function_call_output", call_id: "call_2", output: "const x = 1;" },
  ],
});
const items = (body: Json) => body.input as Json[];

describe("OpenAI Responses rules", () => {
  it("a valid tool loop with reasoning passes; older reasoning left out whole passes too", () => {
    expect(openAIResponsesProblems(validResponses())).toEqual([]);
    expect(openAIReasoningProblems(validResponses(), responses)).toEqual([]);
    const body = validResponses();
    const older = items(body);
    older.push({ type: "message", role: "user", content: "thanks; now y" });
    older.splice(1, 1);
    older.splice(2, 1);
    expect(openAIResponsesProblems(body)).toEqual([]);
    expect(openAIReasoningProblems(body, responses)).toEqual([]);
  });

  const violations: [string, (body: Json) => void, RegExp, "structure" | "issued"][] = [
    ["a function_call without its output", (b) => items(b).splice(8, 1), /No tool output found for function call call_2/, "structure"],
    ["an output without its function_call", (b) => (items(b)[5]!.call_id = "call_9"), /No tool call found for function call output/, "structure"],
    ["a reasoning item with nothing after it", (b) => items(b).splice(7), /provided without its required following item/, "structure"],
    ["a reasoning item sent twice", (b) => items(b).splice(6, 0, clone(rs1)), /Duplicate item found with id rs_01/, "structure"],
    ["a reasoning item whose encrypted_content changed", (b) => (items(b)[6]!.encrypted_content = "gAAAAABo3x"), /could not be verified/, "issued"],
    ["a reasoning item the API never issued", (b) => (items(b)[6]!.id = "rs_99"), /was not issued/, "issued"],
    ["the turn in progress's function_call without the reasoning that preceded it", (b) => items(b).splice(6, 1), /turn in progress was provided without its required reasoning item\(s\): rs_03/, "issued"],
    ["an older function_call keeping part of its reasoning", (b) => { items(b).push({ type: "message", role: "user", content: "next" }); items(b).splice(3, 1); }, /keeps part of the reasoning/, "issued"],
    ["a reasoning item moved away from its own response's items", (b) => { const [r] = items(b).splice(6, 1); items(b).splice(4, 0, r!); }, /not kept with the items of its own response/, "issued"],
  ];
  for (const [rule, breakIt, expected, checker] of violations) {
    it(`catches ${rule}`, () => {
      const body = validResponses();
      breakIt(body);
      const problems = checker === "structure" ? openAIResponsesProblems(body) : openAIReasoningProblems(body, responses);
      expect(problems.join("\n")).toMatch(expected);
    });
  }
});

// --- OpenAI Chat: tool pairing ----------------------------------------------------------------
const validChat = (): Json => ({
  messages: [
    { role: "system", content: "You are terse." },
    { role: "user", content: "find x" },
    { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "grep", arguments: "{}" } }, { id: "call_2", type: "function", function: { name: "read", arguments: "{}" } }] },
    { role: "tool", tool_call_id: "call_1", content: "x.ts:42" },
    { role: "tool", tool_call_id: "call_2", content: "const x = 1;" },
  ],
});
const chat = (body: Json) => body.messages as Json[];

describe("OpenAI Chat rules", () => {
  it("a valid tool turn passes", () => expect(openAIChatProblems(validChat())).toEqual([]));
  const violations: [string, (body: Json) => void, RegExp][] = [
    ["a call without its tool message", (b) => chat(b).pop(), /must be followed by tool messages responding to each 'tool_call_id' \(missing call_2\)/],
    ["a tool message before its call is answered, after other content", (b) => chat(b).splice(3, 0, { role: "user", content: "wait" }), /must be followed by tool messages/],
    ["a tool message answering no preceding call", (b) => (chat(b)[4]!.tool_call_id = "call_9"), /must be a response to a preceding message with 'tool_calls'/],
    ["an assistant message without content or calls", (b) => chat(b).push({ role: "assistant" }), /required unless tool_calls is set/],
    ["duplicate call ids", (b) => (((chat(b)[2]!.tool_calls as Json[])[1]!.id = "call_1")), /duplicate id call_1/],
  ];
  for (const [rule, breakIt, expected] of violations) {
    it(`catches ${rule}`, () => {
      const body = validChat();
      breakIt(body);
      expect(openAIChatProblems(body).join("\n")).toMatch(expected);
    });
  }
});
