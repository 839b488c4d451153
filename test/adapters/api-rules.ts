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
  input.forEach((item: unknown, i) => {
    const at = `input[${i}]`;
    if (!isObject(item)) return void problems.push(`${at}: not an object`);
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
        else calls.set(item.call_id, i);
        break;
      case "function_call_output":
        if (!isText(item.call_id) || !calls.has(item.call_id)) problems.push(`${at}: No tool call found for function call output with call_id ${String(item.call_id)}`);
        else if (answered.has(item.call_id)) problems.push(`${at}: a second output for call_id ${item.call_id}`);
        else answered.add(item.call_id);
        if (!isText(item.output)) {
          if (!Array.isArray(item.output)) problems.push(`${at}.output: string or input parts`);
          else item.output.forEach((p, k) => inputPartProblems(p, `${at}.output[${k}]`, true, problems));
        }
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
