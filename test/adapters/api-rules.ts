/**
 * Each API's documented request rules, as pure checks: [] when the request would be accepted,
 * else one string per broken rule. The property tests run every adapter's output through these,
 * and the provider tests' local HTTP servers refuse (HTTP 400) any request that breaks them.
 *
 * Sources: OpenAI Chat Completions ("An assistant message with 'tool_calls' must be followed by
 * tool messages responding to each 'tool_call_id'", "messages with role 'tool' must be a response
 * to a preceding message with 'tool_calls'"), OpenAI Responses ("No tool output found for function
 * call", "No tool call found for function call output", "Item of type 'reasoning' was provided
 * without its required following item"), Anthropic Messages ("tool_use ids were found without
 * tool_result blocks immediately after", "Each tool_result block must have a corresponding
 * tool_use block in the previous message", tool_result blocks first in their user message, "text
 * content blocks must be non-empty", "A maximum of 4 blocks with cache_control may be provided",
 * "final assistant content cannot end with trailing whitespace", roles alternate, first is user).
 *
 * Thinking and reasoning (issue 28; the rules as the providers document them, each with a
 * hand-made violation in api-rules.test.ts):
 *
 * | API       | rule                                                                                   | checked by |
 * |-----------|----------------------------------------------------------------------------------------|------------|
 * | Anthropic | a thinking block has its thinking text and its signature; redacted_thinking its data; both only in assistant messages | anthropicProblems |
 * | Anthropic | with thinking enabled (`thinking.type` enabled/adaptive), the final assistant message whose tool_use blocks the last user message answers must start with a thinking or redacted_thinking block ("Expected `thinking` or `redacted_thinking`, but found `tool_use`") | anthropicProblems |
 * | Anthropic | every thinking / redacted_thinking block sent is byte-identical to one the API issued (the signature is verified: "Invalid `signature` in `thinking` block") | anthropicThinkingProblems |
 * | Anthropic | the assistant turn in progress (the last tool_use message, answered by the final user message) carries all of its issued thinking blocks, in order, unaltered, first ("thinking blocks in the latest assistant message cannot be modified"; "you must pass thinking blocks back … during tool use") | anthropicThinkingProblems |
 * | Anthropic | older turns' thinking may be left out — but an issued message's thinking is sent whole or not at all (our policy: never partially) | anthropicThinkingProblems |
 * | Responses | a reasoning item is followed by the item it led to; no item id twice ("Duplicate item found with id") | openAIResponsesProblems |
 * | Responses | a reasoning item sent is the one the API issued: same id, encrypted_content byte-identical | openAIReasoningProblems |
 * | Responses | a reasoning item sent sits before the items of its own response (the function calls it preceded), with nothing from another response in between; the function calls of the turn in progress (after the last user message) come with the reasoning items that preceded them | openAIReasoningProblems |
 * | Chat      | an assistant message's tool_calls are each answered by a tool message right after it; a tool message answers a call of the assistant message before it | openAIChatProblems |
 */
type Json = Record<string, unknown>;

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const isText = (v: unknown): v is string => typeof v === "string";

function extraKeys(value: Json, allowed: readonly string[], where: string, problems: string[]): void {
  for (const key of Object.keys(value)) if (!allowed.includes(key)) problems.push(`${where}: unknown parameter '${key}'`);
}

// --- OpenAI Chat Completions -------------------------------------------------------------------
export function openAIChatProblems(body: Json): string[] {
  const problems: string[] = [];
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) return ["messages: a non-empty array is required"];
  let pending = new Set<string>();
  let pendingAt = -1;
  messages.forEach((m: unknown, i) => {
    const at = `messages[${i}]`;
    if (!isObject(m)) return void problems.push(`${at}: not an object`);
    if (pending.size > 0 && m.role !== "tool") {
      problems.push(`messages[${pendingAt}]: An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id' (missing ${[...pending].join(", ")})`);
      pending = new Set();
    }
    switch (m.role) {
      case "system":
      case "developer":
        extraKeys(m, ["role", "content", "name"], at, problems);
        if (!isText(m.content) && !(Array.isArray(m.content) && m.content.every((p) => isObject(p) && p.type === "text" && isText(p.text)))) problems.push(`${at}.content: string or text parts`);
        break;
      case "user":
        extraKeys(m, ["role", "content", "name"], at, problems);
        if (!isText(m.content)) {
          if (!Array.isArray(m.content) || m.content.length === 0) problems.push(`${at}.content: string or a non-empty array of parts`);
          else
            m.content.forEach((p, k) => {
              if (isObject(p) && p.type === "text" && isText(p.text)) return;
              if (isObject(p) && p.type === "image_url" && isObject(p.image_url) && isText(p.image_url.url) && p.image_url.url !== "") return;
              problems.push(`${at}.content[${k}]: a text or image_url part`);
            });
        }
        break;
      case "assistant": {
        extraKeys(m, ["role", "content", "name", "tool_calls", "refusal"], at, problems);
        const calls = m.tool_calls;
        if (calls !== undefined) {
          if (!Array.isArray(calls) || calls.length === 0) problems.push(`${at}.tool_calls: a non-empty array`);
          else {
            const ids = new Set<string>();
            calls.forEach((c, k) => {
              if (!isObject(c) || c.type !== "function" || !isText(c.id) || c.id === "" || !isObject(c.function) || !isText(c.function.name) || !TOOL_NAME.test(c.function.name) || !isText(c.function.arguments)) {
                problems.push(`${at}.tool_calls[${k}]: { id, type: "function", function: { name, arguments } }`);
              } else if (ids.has(c.id)) problems.push(`${at}.tool_calls[${k}]: duplicate id ${c.id}`);
              else ids.add(c.id);
            });
            pending = ids;
            pendingAt = i;
          }
        }
        const content = m.content;
        if (content === null || content === undefined) {
          if (calls === undefined) problems.push(`${at}.content: required unless tool_calls is set`);
        } else if (!isText(content) && !(Array.isArray(content) && content.every((p) => isObject(p) && ((p.type === "text" && isText(p.text)) || p.type === "refusal")))) {
          problems.push(`${at}.content: string, text parts or null`);
        }
        break;
      }
      case "tool":
        // `name` is not in the API reference for tool messages, but OpenAI's own cookbook sends it
        // ("How to call functions with chat models") and the API accepts it; LangChain's ChatOpenAI
        // sends every ToolMessage's tool name there.
        extraKeys(m, ["role", "content", "tool_call_id", "name"], at, problems);
        if (!isText(m.tool_call_id) || !pending.delete(m.tool_call_id)) problems.push(`${at}: messages with role 'tool' must be a response to a preceding message with 'tool_calls' (${String(m.tool_call_id)})`);
        if (!isText(m.content) && !(Array.isArray(m.content) && m.content.every((p) => isObject(p) && p.type === "text" && isText(p.text)))) problems.push(`${at}.content: string or text parts`);
        break;
      default:
        problems.push(`${at}.role: one of system, developer, user, assistant, tool`);
    }
  });
  if (pending.size > 0) problems.push(`messages[${pendingAt}]: An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id' (missing ${[...pending].join(", ")})`);
  checkTools(body.tools, (t) => t.type === "function" && isObject(t.function) && isText(t.function.name) && TOOL_NAME.test(t.function.name) && isObject(t.function.parameters), problems);
  return problems;
}

// --- OpenAI Responses --------------------------------------------------------------------------
export function openAIResponsesProblems(body: Json): string[] {
  const problems: string[] = [];
  if (body.instructions !== undefined && !isText(body.instructions)) problems.push("instructions: a string");
  const input = body.input;
  if (isText(input)) return problems;
  if (!Array.isArray(input)) return [...problems, "input: a string or an array of items"];
  const calls = new Map<string, number>();
  const answered = new Set<string>();
  const callKinds = new Map<string, string>();
  const itemIds = new Set<string>();
  input.forEach((item: unknown, i) => {
    const at = `input[${i}]`;
    if (!isObject(item)) return void problems.push(`${at}: not an object`);
    if (isText(item.id)) {
      if (itemIds.has(item.id)) problems.push(`${at}: Duplicate item found with id ${item.id}`);
      itemIds.add(item.id);
    }
    // An input message may leave `type` out (EasyInputMessage: `type?: "message"` in the API's own SDK types).
    switch (item.type === undefined && isText(item.role) ? "message" : item.type) {
      case "message": {
        const role = item.role;
        if (role === "assistant") {
          if (!isText(item.content) && !(Array.isArray(item.content) && item.content.every((p) => isObject(p) && ((p.type === "output_text" && isText(p.text)) || p.type === "refusal")))) problems.push(`${at}.content: string or output_text parts`);
        } else if (role === "user" || role === "system" || role === "developer") {
          if (!isText(item.content)) {
            if (!Array.isArray(item.content)) problems.push(`${at}.content: string or input parts`);
            else item.content.forEach((p, k) => inputPartProblems(p, `${at}.content[${k}]`, role === "user", problems));
          }
        } else problems.push(`${at}.role: user, system, developer or assistant`);
        extraKeys(item, ["type", "role", "content", "id", "status"], at, problems);
        break;
      }
      case "function_call":
        if (!isText(item.call_id) || item.call_id === "" || !isText(item.name) || !isText(item.arguments)) problems.push(`${at}: { call_id, name, arguments }`);
        else if (calls.has(item.call_id)) problems.push(`${at}: duplicate call_id ${item.call_id}`);
        else {
          calls.set(item.call_id, i);
          callKinds.set(item.call_id, "function_call");
        }
        break;
      case "function_call_output":
        if (!isText(item.call_id) || !calls.has(item.call_id)) problems.push(`${at}: No tool call found for function call output with call_id ${String(item.call_id)}`);
        else if (callKinds.get(item.call_id) !== "function_call") problems.push(`${at}: a function_call_output answers the ${String(callKinds.get(item.call_id))} ${item.call_id}`);
        else if (answered.has(item.call_id)) problems.push(`${at}: a second output for call_id ${item.call_id}`);
        else answered.add(item.call_id);
        if (!isText(item.output)) {
          if (!Array.isArray(item.output)) problems.push(`${at}.output: string or input parts`);
          else item.output.forEach((p, k) => inputPartProblems(p, `${at}.output[${k}]`, true, problems));
        }
        break;
      case "custom_tool_call":
      case "computer_call":
      case "local_shell_call":
      case "shell_call":
      case "apply_patch_call":
      case "mcp_approval_request": {
        const key = item.type === "mcp_approval_request" ? item.id : item.call_id;
        if (!isText(key) || key === "") problems.push(`${at}: ${item.type} without its ${item.type === "mcp_approval_request" ? "id" : "call_id"}`);
        else if (calls.has(key)) problems.push(`${at}: duplicate call_id ${key}`);
        else {
          calls.set(key, i);
          callKinds.set(key, String(item.type));
        }
        if ((item.type === "computer_call" || item.type === "local_shell_call") && !isText(item.id)) problems.push(`${at}.id: required on a ${item.type}`);
        break;
      }
      case "custom_tool_call_output":
      case "computer_call_output":
      case "local_shell_call_output":
      case "shell_call_output":
      case "apply_patch_call_output":
      case "mcp_approval_response": {
        const kind = (item.type as string).replace(/_output$/, "").replace("mcp_approval_response", "mcp_approval_request");
        const key = item.type === "mcp_approval_response" ? item.approval_request_id : item.type === "local_shell_call_output" ? item.id : item.call_id;
        if (!isText(key) || !calls.has(key)) problems.push(`${at}: No tool call found for ${item.type} ${String(key)}`);
        else if (callKinds.get(key) !== kind) problems.push(`${at}: a ${item.type} answers the ${String(callKinds.get(key))} ${key}`);
        else if (answered.has(key)) problems.push(`${at}: a second output for call_id ${key}`);
        else answered.add(key);
        if (item.type === "computer_call_output" && !(isObject(item.output) && item.output.type === "computer_screenshot")) problems.push(`${at}.output: a computer_screenshot`);
        if (item.type === "shell_call_output" && !Array.isArray(item.output)) problems.push(`${at}.output: an array of { stdout, stderr, outcome }`);
        break;
      }
      case "web_search_call":
      case "file_search_call":
      case "code_interpreter_call":
      case "image_generation_call":
      case "mcp_call":
      case "mcp_list_tools":
      case "item_reference":
        break;
      case "compaction":
        compactionItemProblems(item, at, problems);
        break;
      case "reasoning": {
        if (!isText(item.id) || !item.id.startsWith("rs_")) problems.push(`${at}.id: a reasoning item id (rs_…)`);
        if (!Array.isArray(item.summary)) problems.push(`${at}.summary: an array`);
        const next = input[i + 1] as Json | undefined;
        if (!next || next.type === "reasoning" || next.type === "function_call_output" || (next.type === "message" && next.role !== "assistant")) {
          problems.push(`${at}: Item of type 'reasoning' was provided without its required following item`);
        }
        break;
      }
      default:
        problems.push(`${at}.type: unknown item type ${String(item.type)}`);
    }
  });
  for (const [id, i] of calls) if (!answered.has(id)) problems.push(`input[${i}]: No tool output found for function call ${id}`);
  checkTools(body.tools, (t) => t.type === "function" && isText(t.name) && TOOL_NAME.test(t.name) && isObject(t.parameters), problems);
  return problems;
}

function inputPartProblems(p: unknown, at: string, imagesAllowed: boolean, problems: string[]): void {
  if (isObject(p) && p.type === "input_text" && isText(p.text)) return;
  if (imagesAllowed && isObject(p) && p.type === "input_image" && isText(p.image_url) && p.image_url !== "" && ["auto", "low", "high"].includes(p.detail as string)) return;
  problems.push(`${at}: an input_text${imagesAllowed ? " or input_image (image_url, detail)" : ""} part`);
}

// --- Anthropic Messages ------------------------------------------------------------------------
const MEDIA_TYPES = ["image/jpeg", "image/png", "image/gif", "image/webp"];
const TOOL_ID = /^[a-zA-Z0-9_-]+$/;

export function anthropicProblems(body: Json): string[] {
  const problems: string[] = [];
  let breakpoints = 0;
  const cache = (block: Json, at: string) => {
    if (block.cache_control === undefined) return;
    breakpoints++;
    if (!isObject(block.cache_control) || block.cache_control.type !== "ephemeral") problems.push(`${at}.cache_control: { type: "ephemeral" }`);
  };
  if (body.system !== undefined) {
    if (isText(body.system)) {
      if (body.system.trim() === "") problems.push("system: non-empty");
    } else if (!Array.isArray(body.system)) problems.push("system: a string or text blocks");
    else
      body.system.forEach((b, k) => {
        if (!isObject(b) || b.type !== "text" || !isText(b.text) || b.text.trim() === "") problems.push(`system[${k}]: text content blocks must be non-empty`);
        else cache(b, `system[${k}]`);
      });
  }
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) return [...problems, "messages: at least one message"];
  let previousUses = new Set<string>();
  const seenIds = new Set<string>();
  messages.forEach((m: unknown, i) => {
    const at = `messages[${i}]`;
    if (!isObject(m)) return void problems.push(`${at}: not an object`);
    extraKeys(m, ["role", "content"], at, problems);
    if (m.role !== "user" && m.role !== "assistant") return void problems.push(`${at}.role: user or assistant`);
    if (i === 0 && m.role !== "user") problems.push(`${at}: the first message must use the user role`);
    if (i > 0 && (messages[i - 1] as Json).role === m.role) problems.push(`${at}: roles must alternate between user and assistant`);
    const blocks: Json[] = isText(m.content) ? [{ type: "text", text: m.content }] : Array.isArray(m.content) ? (m.content as Json[]) : [];
    if (!isText(m.content) && !Array.isArray(m.content)) problems.push(`${at}.content: a string or blocks`);
    const isFinalAssistant = i === messages.length - 1 && m.role === "assistant";
    if (blocks.length === 0 && !isFinalAssistant) problems.push(`${at}: all messages must have non-empty content except for the optional final assistant message`);
    const uses = new Set<string>();
    let seenOther = false;
    const results = new Set<string>();
    blocks.forEach((b, k) => {
      const bat = `${at}.content[${k}]`;
      if (!isObject(b)) return void problems.push(`${bat}: not an object`);
      const allowed = m.role === "user" ? ["text", "image", "tool_result"] : ["text", "thinking", "redacted_thinking", "tool_use", "compaction"];
      if (!allowed.includes(b.type as string)) return void problems.push(`${bat}.type: ${String(b.type)} is not allowed in a ${m.role} message`);
      switch (b.type) {
        case "text":
          if (!isText(b.text) || b.text.trim() === "") problems.push(`${bat}: text content blocks must contain non-whitespace text`);
          extraKeys(b, ["type", "text", "cache_control"], bat, problems);
          cache(b, bat);
          seenOther = true;
          break;
        case "image":
          imageProblems(b, bat, problems);
          cache(b, bat);
          seenOther = true;
          break;
        case "thinking":
          if (!isText(b.thinking) || !isText(b.signature) || b.signature === "") problems.push(`${bat}: thinking blocks need thinking and signature`);
          extraKeys(b, ["type", "thinking", "signature"], bat, problems);
          break;
        case "redacted_thinking":
          if (!isText(b.data)) problems.push(`${bat}: redacted_thinking needs data`);
          extraKeys(b, ["type", "data"], bat, problems);
          break;
        case "compaction":
          compactionBlockProblems(b, bat, problems);
          cache(b, bat);
          break;
        case "tool_use":
          if (!isText(b.id) || !TOOL_ID.test(b.id) || !isText(b.name) || !TOOL_NAME.test(b.name) || !isObject(b.input)) problems.push(`${bat}: { id, name, input }`);
          else if (seenIds.has(b.id)) problems.push(`${bat}: tool_use ids must be unique (${b.id})`);
          else {
            seenIds.add(b.id);
            uses.add(b.id);
          }
          extraKeys(b, ["type", "id", "name", "input", "cache_control"], bat, problems);
          cache(b, bat);
          break;
        case "tool_result":
          if (seenOther) problems.push(`${bat}: tool_result blocks must come first in the user message`);
          if (!isText(b.tool_use_id) || !previousUses.has(b.tool_use_id)) problems.push(`${bat}: unexpected tool_use_id found in tool_result blocks: ${String(b.tool_use_id)}. Each tool_result block must have a corresponding tool_use block in the previous message.`);
          else if (results.has(b.tool_use_id)) problems.push(`${bat}: a second tool_result for ${b.tool_use_id}`);
          else results.add(b.tool_use_id);
          if (b.content !== undefined && !isText(b.content)) {
            if (!Array.isArray(b.content)) problems.push(`${bat}.content: a string or blocks`);
            else
              b.content.forEach((inner, n) => {
                if (isObject(inner) && inner.type === "text" && isText(inner.text) && inner.text.trim() !== "") return;
                if (isObject(inner) && inner.type === "image") return void imageProblems(inner, `${bat}.content[${n}]`, problems);
                problems.push(`${bat}.content[${n}]: non-empty text or an image`);
              });
          }
          extraKeys(b, ["type", "tool_use_id", "content", "is_error", "cache_control"], bat, problems);
          cache(b, bat);
          break;
      }
    });
    if (previousUses.size > 0) {
      const missing = [...previousUses].filter((id) => !results.has(id));
      if (missing.length > 0) problems.push(`messages[${i - 1}]: tool_use ids were found without tool_result blocks immediately after: ${missing.join(", ")}`);
    }
    previousUses = uses;
    if (isFinalAssistant) {
      const last = blocks[blocks.length - 1];
      if (last?.type === "text" && isText(last.text) && last.text !== last.text.trimEnd()) problems.push(`${at}: final assistant content cannot end with trailing whitespace`);
    }
  });
  if (thinkingEnabled(body)) {
    const last = messages.length - 1;
    const final = messages[last] as Json | undefined;
    const before = messages[last - 1] as Json | undefined;
    const answersTools = isObject(final) && final.role === "user" && Array.isArray(final.content) && final.content.some((b) => isObject(b) && b.type === "tool_result");
    if (answersTools && isObject(before) && before.role === "assistant" && Array.isArray(before.content) && before.content.some((b) => isObject(b) && b.type === "tool_use")) {
      const first = before.content[0] as Json | undefined;
      if (first?.type !== "thinking" && first?.type !== "redacted_thinking") {
        problems.push(`messages[${last - 1}].content[0].type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first?.type)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceding the lastmost set of \`tool_use\` and \`tool_result\` blocks)`);
      }
    }
  }
  if (previousUses.size > 0 && (messages[messages.length - 1] as Json).role === "assistant") {
    // A final assistant message with tool_use and no result: refused as well.
    problems.push(`messages[${messages.length - 1}]: tool_use ids were found without tool_result blocks immediately after: ${[...previousUses].join(", ")}`);
  }
  checkTools(body.tools, (t) => isText(t.name) && TOOL_NAME.test(t.name) && isObject(t.input_schema) && t.input_schema.type === "object", problems);
  if (Array.isArray(body.tools)) for (const t of body.tools) if (isObject(t) && t.cache_control !== undefined) breakpoints++;
  if (breakpoints > 4) problems.push(`A maximum of 4 blocks with cache_control may be provided. Found ${breakpoints}.`);
  return problems;
}

// --- provider compaction (issue 28 part 3) -----------------------------------------------------
// OpenAI: developers.openai.com/api/docs/guides/compaction — the encrypted compaction item goes back
// as it came (`type`, `encrypted_content`, `id`; `created_by` when the API set it).
// Anthropic: platform.claude.com/docs/en/build-with-claude/compaction — a compaction block is
// `{ type: "compaction", content, encrypted_content }` (content null when the compaction failed;
// `signature`, `tool_changes` when the API set them: @anthropic-ai/sdk BetaCompactionBlockParam), in assistant content.

function compactionItemProblems(item: Json, at: string, problems: string[]): void {
  if (!isText(item.encrypted_content) || item.encrypted_content === "") problems.push(`${at}.encrypted_content: the compaction item's encrypted content`);
  if (item.id !== undefined && (!isText(item.id) || item.id === "")) problems.push(`${at}.id: a compaction item id`);
  extraKeys(item, ["type", "id", "encrypted_content", "created_by"], at, problems);
}

function compactionBlockProblems(b: Json, at: string, problems: string[]): void {
  if (b.content !== null && !isText(b.content)) problems.push(`${at}.content: the compaction summary (a string) or null`);
  extraKeys(b, ["type", "content", "encrypted_content", "signature", "tool_changes", "cache_control"], at, problems);
}

function imageProblems(b: Json, at: string, problems: string[]): void {
  const s = b.source;
  if (isObject(s) && s.type === "base64" && MEDIA_TYPES.includes(s.media_type as string) && isText(s.data) && s.data !== "") return;
  if (isObject(s) && s.type === "url" && isText(s.url) && /^https?:\/\//.test(s.url)) return;
  problems.push(`${at}.source: base64 (image/jpeg|png|gif|webp, data) or url (http/https)`);
}

function checkTools(tools: unknown, valid: (tool: Json) => boolean, problems: string[]): void {
  if (tools === undefined) return;
  if (!Array.isArray(tools) || tools.length === 0) return void problems.push("tools: a non-empty array when present");
  const names = new Set<string>();
  tools.forEach((t, k) => {
    if (!isObject(t) || !valid(t)) problems.push(`tools[${k}]: not a valid tool definition`);
    const name = isObject(t) ? ((t.name as string | undefined) ?? (t.function as Json | undefined)?.name) : undefined;
    if (typeof name === "string") {
      if (names.has(name)) problems.push(`tools[${k}]: tool names must be unique`);
      names.add(name);
    }
  });
}

function thinkingEnabled(body: Json): boolean {
  const thinking = body.thinking;
  return isObject(thinking) && (thinking.type === "enabled" || thinking.type === "adaptive");
}

// --- Thinking and reasoning against what the API issued -----------------------------------------

/** An assistant message as the Messages API returned it (its content blocks, signatures included). */
export interface IssuedAnthropicMessage {
  readonly content: readonly Json[];
}

const isThinking = (b: unknown): b is Json & { type: "thinking" | "redacted_thinking" } => isObject(b) && (b.type === "thinking" || b.type === "redacted_thinking");
/** A thinking block's identity: what the API verifies (thinking text + signature, or the redacted data). */
const thinkingKey = (b: Json): string => JSON.stringify(b.type === "thinking" ? ["thinking", b.thinking, b.signature] : ["redacted_thinking", b.data]);

/**
 * The Anthropic thinking rules that need what the API issued (`issued`: every assistant message
 * it returned in this conversation, blocks as returned). [] when the request keeps them.
 */
export function anthropicThinkingProblems(body: Json, issued: readonly IssuedAnthropicMessage[]): string[] {
  const problems: string[] = [];
  const messages = Array.isArray(body.messages) ? (body.messages as unknown[]) : [];
  // Each issued block → the issued message it came from; each tool_use id → that message.
  const owner = new Map<string, number>();
  const byToolUse = new Map<string, number>();
  issued.forEach((m, k) => {
    for (const b of m.content) {
      if (isThinking(b)) owner.set(thinkingKey(b), k);
      else if (b.type === "tool_use" && isText(b.id)) byToolUse.set(b.id, k);
    }
  });
  const thinkingOf = (k: number) => issued[k]!.content.filter(isThinking).map(thinkingKey);
  messages.forEach((m, i) => {
    if (!isObject(m) || m.role !== "assistant" || !Array.isArray(m.content)) return;
    const sent = m.content.filter(isThinking);
    for (const b of sent) {
      if (!owner.has(thinkingKey(b))) problems.push(`messages[${i}]: Invalid \`signature\` in \`${String(b.type)}\` block: a thinking block not byte-identical to one the API issued`);
    }
    // Never partially: an issued message's thinking blocks are all sent, contiguous and in order, or none.
    const keys = sent.map(thinkingKey);
    for (const k of new Set(keys.map((key) => owner.get(key)).filter((k): k is number => k !== undefined))) {
      const whole = thinkingOf(k);
      const start = keys.indexOf(whole[0]!);
      if (start < 0 || whole.some((key, n) => keys[start + n] !== key)) problems.push(`messages[${i}]: the thinking of an issued message is sent partially (${whole.length} blocks issued; thinking is kept whole or left out)`);
    }
  });
  // The tool turn in progress: the final user message answers the assistant message before it.
  const last = messages.length - 1;
  const final = messages[last] as Json | undefined;
  const before = messages[last - 1] as Json | undefined;
  if (isObject(final) && final.role === "user" && Array.isArray(final.content) && isObject(before) && before.role === "assistant" && Array.isArray(before.content)) {
    const finalBlocks = final.content as unknown[];
    const beforeBlocks = before.content as unknown[];
    const results = new Set(finalBlocks.filter(isObject).filter((b) => b.type === "tool_result").map((b) => b.tool_use_id));
    const uses = beforeBlocks.filter(isObject).filter((b) => b.type === "tool_use" && results.has(b.id));
    const origins = new Set(uses.map((u) => byToolUse.get(u.id as string)).filter((k): k is number => k !== undefined));
    const sentKeys = beforeBlocks.filter(isThinking).map(thinkingKey);
    for (const k of origins) {
      const whole = thinkingOf(k);
      if (whole.length === 0) continue;
      const start = sentKeys.indexOf(whole[0]!);
      if (start < 0 || whole.some((key, n) => sentKeys[start + n] !== key)) {
        problems.push(`messages[${last - 1}]: thinking or redacted_thinking blocks in the latest assistant message cannot be modified or left out: the tool turn in progress needs its ${whole.length} issued thinking block(s) unaltered`);
      }
    }
    if (origins.size > 0 && sentKeys.length > 0 && !isThinking(beforeBlocks[0])) problems.push(`messages[${last - 1}]: the thinking of the assistant turn in progress must come first, before its text and tool_use blocks`);
  }
  return problems;
}

/**
 * The Responses reasoning rules that need what the API issued (`issued`: each response's output
 * items, as returned). [] when the request keeps them.
 */
export function openAIReasoningProblems(body: Json, issued: readonly (readonly Json[])[]): string[] {
  const problems: string[] = [];
  const input = Array.isArray(body.input) ? (body.input as unknown[]) : [];
  // Response of each reasoning id and each call_id; the reasoning items a response has before each of its calls.
  const reasoningOf = new Map<string, { response: number; item: Json }>();
  const responseOfCall = new Map<string, number>();
  const reasoningBefore = new Map<string, string[]>();
  issued.forEach((output, r) => {
    const seen: string[] = [];
    for (const item of output) {
      if (item.type === "reasoning" && isText(item.id)) {
        reasoningOf.set(item.id, { response: r, item });
        seen.push(item.id);
      } else if (item.type === "function_call" && isText(item.call_id)) {
        responseOfCall.set(item.call_id, r);
        reasoningBefore.set(item.call_id, [...seen]);
      }
    }
  });
  const lastUser = input.reduce<number>((at, item, i) => (isObject(item) && (item.type === "message" || item.type === undefined) && item.role === "user" ? i : at), -1);
  input.forEach((item, i) => {
    if (!isObject(item)) return;
    if (item.type === "reasoning") {
      const origin = isText(item.id) ? reasoningOf.get(item.id) : undefined;
      if (!origin) return void problems.push(`input[${i}]: reasoning item ${String(item.id)} was not issued by the API`);
      if ((item.encrypted_content ?? null) !== (origin.item.encrypted_content ?? null)) problems.push(`input[${i}]: The encrypted content for item ${String(item.id)} could not be verified (not byte-identical)`);
      // What follows it, up to the next item of another kind of origin, is its own response's.
      const next = input[i + 1] as Json | undefined;
      const nextOrigin = next?.type === "reasoning" && isText(next.id) ? reasoningOf.get(next.id)?.response : next?.type === "function_call" && isText(next.call_id) ? responseOfCall.get(next.call_id) : origin.response;
      if (nextOrigin !== undefined && nextOrigin !== origin.response) problems.push(`input[${i}]: reasoning item ${String(item.id)} is not kept with the items of its own response`);
    }
    if (item.type === "function_call" && isText(item.call_id)) {
      const needed = reasoningBefore.get(item.call_id) ?? [];
      if (needed.length === 0) return;
      const present = new Set<string>();
      for (let j = i - 1; j >= 0; j--) {
        const earlier = input[j] as Json;
        if (earlier?.type === "function_call_output" || (earlier?.type === "message" && earlier.role !== "assistant")) break;
        if (earlier?.type === "reasoning" && isText(earlier.id)) present.add(earlier.id);
      }
      const missing = needed.filter((id) => !present.has(id));
      const anyKept = needed.some((id) => present.has(id));
      if (i > lastUser && missing.length > 0) problems.push(`input[${i}]: function_call ${item.call_id} of the turn in progress was provided without its required reasoning item(s): ${missing.join(", ")}`);
      else if (anyKept && missing.length > 0) problems.push(`input[${i}]: function_call ${item.call_id} keeps part of the reasoning that preceded it (missing ${missing.join(", ")}; kept whole or left out)`);
    }
  });
  return problems;
}
