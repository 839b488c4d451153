/**
 * Server-side compaction as the APIs document it, for fake-api-server.ts (no network):
 *
 * | API | request | answer |
 * |-----|---------|--------|
 * | Anthropic Messages (with `pause_after_compaction`: the compaction block alone, stop_reason "compaction") | `context_management.edits` checked (compact_20260112, clear_tool_uses_20250919, clear_thinking_20251015; each once, clear_thinking first) with the `anthropic-beta` header each edit needs; a `compaction` block sent must be one this server returned, unchanged (else 400); every block before the last compaction block is dropped before the input is measured | when the input (≈ JSON length / 4) reaches the compact edit's trigger (default 150,000): a `compaction` block first in `content`, `usage.iterations` = [compaction, message] with the compaction's tokens left out of the top-level usage |
 * | OpenAI Responses | `context_management` = [{ type: "compaction", compact_threshold }] checked; a `compaction` item sent must be one this server returned, unchanged (else 400); the input is measured from the last compaction item on | when the input reaches `compact_threshold`: the encrypted `compaction` item first in `output` |
 * | POST /v1/responses/compact | `{ model, input, instructions? }`, the input checked like /v1/responses | `response.compaction`: the input's user messages, then one compaction item |
 *
 * Sources: platform.claude.com/docs/en/build-with-claude/compaction, …/context-editing,
 * developers.openai.com/api/docs/guides/compaction, the Responses API reference (compact), and
 * the official SDKs' types (@anthropic-ai/sdk Beta*, openai ResponseCompactionItem).
 */
export type Json = Record<string, unknown>;

/** What one request sent back and whether the answer compacts. */
export interface CompactionCheck {
  problems: string[];
  /** Compaction blocks/items the request carried (each checked against what was returned). */
  sent: number;
  /** Whether the newest block/item this server returned was sent back (undefined before any). */
  latestSentBack?: boolean;
  /** The request's input as measured (≈ tokens) after what the API drops. */
  measured: number;
  /** Set when the answer compacts: the block or item to put first, and its usage. */
  compact?: { item: Json; inputTokens: number; outputTokens: number; pause?: boolean };
}

export class FakeCompaction {
  /** What this server returned, by key (Anthropic: encrypted_content; OpenAI: id), as JSON text. */
  readonly #issued = new Map<string, string>();
  #latest: string | undefined;
  #count = 0;

  anthropic(body: Json, betaHeader: string | undefined): CompactionCheck {
    const problems: string[] = [];
    const betas = (betaHeader ?? "").split(",").map((b) => b.trim());
    const edits = anthropicEdits(body.context_management, betas, problems);
    const messages = Array.isArray(body.messages) ? (body.messages as Json[]) : [];
    let sent = 0;
    let last: { m: number; b: number } | undefined;
    let latestSentBack = false;
    messages.forEach((message, m) => {
      if (!Array.isArray(message?.content)) return;
      (message.content as Json[]).forEach((block, b) => {
        if (block?.type !== "compaction") return;
        sent++;
        last = { m, b };
        const at = `messages[${m}].content[${b}]`;
        if (!betas.includes("compact-2026-01-12")) problems.push(`${at}: compaction blocks need the anthropic-beta header compact-2026-01-12`);
        if (block.content === "") problems.push(`${at}.content: empty string content is not allowed (null marks a failed compaction)`);
        const issued = this.#issued.get(String(block.encrypted_content));
        const { cache_control: _ignored, ...sentBlock } = block;
        if (issued === undefined || issued !== JSON.stringify(sentBlock)) problems.push(`${at}: the compaction block is not one the API returned, unchanged (send it back as returned)`);
        if (issued !== undefined && String(block.encrypted_content) === this.#latest) latestSentBack = true;
      });
    });
    // The API drops every block before the last compaction block: the rest is what is measured.
    const kept = last === undefined ? messages : [{ ...messages[last.m], content: (messages[last.m]!.content as Json[]).slice(last.b) }, ...messages.slice(last.m + 1)];
    const measured = measure([body.system, body.tools, kept]);
    const check: CompactionCheck = { problems, sent, measured, ...(this.#latest !== undefined ? { latestSentBack } : {}) };
    const compact = edits.find((e) => e.type === "compact_20260112");
    const trigger = (compact?.trigger as { value?: number } | undefined)?.value ?? 150_000;
    if (problems.length === 0 && compact !== undefined && measured >= trigger) {
      const n = ++this.#count;
      const item = { type: "compaction", content: `Summary ${n}: the conversation so far (${measured} tokens) in short.`, encrypted_content: Buffer.from(`anthropic-compaction-state-${n}`).toString("base64") };
      this.#issued.set(item.encrypted_content, JSON.stringify(item));
      this.#latest = item.encrypted_content;
      check.compact = { item, inputTokens: measured, outputTokens: Math.ceil(item.content.length / 4), ...(compact.pause_after_compaction === true ? { pause: true } : {}) };
    }
    return check;
  }

  responses(body: Json): CompactionCheck {
    const problems: string[] = [];
    const threshold = responsesThreshold(body.context_management, problems);
    const input = Array.isArray(body.input) ? (body.input as Json[]) : [];
    let sent = 0;
    let last = -1;
    let latestSentBack = false;
    input.forEach((item, i) => {
      if (item?.type !== "compaction") return;
      sent++;
      last = i;
      const key = typeof item.id === "string" ? item.id : [...this.#issued.entries()].find(([, json]) => (JSON.parse(json) as Json).encrypted_content === item.encrypted_content)?.[0];
      const issued = key === undefined ? undefined : this.#issued.get(key);
      if (issued === undefined || issued !== JSON.stringify(item)) problems.push(`input[${i}]: Invalid compaction item: it is not one the API returned, unchanged`);
      if (key !== undefined && key === this.#latest) latestSentBack = true;
    });
    const measured = measure([body.instructions, body.tools, last < 0 ? input : input.slice(last)]);
    const check: CompactionCheck = { problems, sent, measured, ...(this.#latest !== undefined ? { latestSentBack } : {}) };
    if (problems.length === 0 && threshold !== undefined && measured >= threshold) check.compact = { item: this.#newItem(), inputTokens: measured, outputTokens: 0 };
    return check;
  }

  /** POST /v1/responses/compact: the input's user messages, then one compaction item. */
  compactEndpoint(body: Json): { problems: string[]; output: Json[]; measured: number } {
    const input = typeof body.input === "string" ? [{ type: "message", role: "user", content: body.input }] : Array.isArray(body.input) ? (body.input as Json[]) : [];
    const users = input
      .filter((item) => (item.type === "message" || item.type === undefined) && item.role === "user")
      .map((item) => ({ type: "message", role: "user", content: typeof item.content === "string" ? [{ type: "input_text", text: item.content }] : item.content }));
    const problems = input.length === 0 ? ["input: required"] : [];
    return { problems, output: [...users, this.#newItem()], measured: measure([body.instructions, input]) };
  }

  #newItem(): Json {
    const n = ++this.#count;
    const item = { id: `cmp_${String(n).padStart(4, "0")}`, type: "compaction", encrypted_content: Buffer.from(`openai-compaction-state-${n}`).toString("base64") };
    this.#issued.set(item.id, JSON.stringify(item));
    this.#latest = item.id;
    return item;
  }
}

/** ≈ tokens of a JSON value: its JSON text / 4 (the fake's stand-in for the API's count). */
export function measure(value: unknown): number {
  return Math.ceil(JSON.stringify(value ?? null).length / 4);
}

const EDIT_BETA: Record<string, string> = {
  compact_20260112: "compact-2026-01-12",
  clear_tool_uses_20250919: "context-management-2025-06-27",
  clear_thinking_20251015: "context-management-2025-06-27",
};

function anthropicEdits(management: unknown, betas: readonly string[], problems: string[]): Json[] {
  if (management === undefined) return [];
  const edits = (management as Json | null)?.edits;
  if (typeof management !== "object" || management === null || !Array.isArray(edits)) {
    problems.push("context_management: { edits: [...] }");
    return [];
  }
  const extra = Object.keys(management).filter((k) => k !== "edits");
  if (extra.length > 0) problems.push(`context_management: unknown parameter '${extra[0]}'`);
  const seen = new Set<string>();
  (edits as Json[]).forEach((edit, i) => {
    const at = `context_management.edits[${i}]`;
    const type = String(edit?.type);
    const beta = EDIT_BETA[type];
    if (beta === undefined) return void problems.push(`${at}.type: unknown edit type ${type}`);
    if (!betas.includes(beta)) problems.push(`${at}: ${type} needs the anthropic-beta header ${beta}`);
    if (seen.has(type)) problems.push(`${at}: ${type} is listed twice`);
    seen.add(type);
    if (type === "clear_thinking_20251015" && i > 0) problems.push(`${at}: clear_thinking_20251015 must be the first edit`);
    if (type === "compact_20260112") {
      const trigger = edit.trigger as Json | undefined;
      if (trigger !== undefined && trigger !== null && (trigger.type !== "input_tokens" || !Number.isInteger(trigger.value) || (trigger.value as number) < 50_000)) problems.push(`${at}.trigger: { type: "input_tokens", value ≥ 50000 }`);
      if (edit.pause_after_compaction !== undefined && typeof edit.pause_after_compaction !== "boolean") problems.push(`${at}.pause_after_compaction: a boolean`);
      unknownKeys(edit, ["type", "trigger", "pause_after_compaction", "instructions"], at, problems);
    } else if (type === "clear_tool_uses_20250919") {
      unknownKeys(edit, ["type", "trigger", "keep", "clear_at_least", "exclude_tools", "clear_tool_inputs"], at, problems);
    } else unknownKeys(edit, ["type", "keep"], at, problems);
  });
  return edits as Json[];
}

function responsesThreshold(management: unknown, problems: string[]): number | undefined {
  if (management === undefined || management === null) return undefined;
  if (!Array.isArray(management)) {
    problems.push("context_management: an array of entries");
    return undefined;
  }
  let threshold: number | undefined;
  management.forEach((entry: Json, i) => {
    const at = `context_management[${i}]`;
    if (entry?.type !== "compaction") return void problems.push(`${at}.type: Currently only 'compaction' is supported`);
    const value = entry.compact_threshold;
    if (value !== undefined && value !== null && (!Number.isInteger(value) || (value as number) <= 0)) problems.push(`${at}.compact_threshold: a positive integer`);
    else if (typeof value === "number") threshold = value;
    unknownKeys(entry, ["type", "compact_threshold"], at, problems);
  });
  return threshold;
}

function unknownKeys(value: Json, allowed: readonly string[], at: string, problems: string[]): void {
  for (const key of Object.keys(value)) if (!allowed.includes(key)) problems.push(`${at}: unknown parameter '${key}'`);
}
