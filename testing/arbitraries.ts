/**
 * fast-check arbitraries of realistic, messy, tool-using histories — the input of every window
 * property (ours and describeContextManagerContract's).
 *
 * A history is a system prompt (sometimes critical, sometimes absent), sometimes an assistant
 * greeting before the first user message, then steps:
 *
 * | step        | messages                                                                        |
 * |-------------|---------------------------------------------------------------------------------|
 * | `user`      | a user prompt: text, or text + image blocks; sometimes preceded by 1–2 hook turn notes (a prompt:submit injection: system/developer, `metadata.scope: "turn"`, sometimes critical) |
 * | `assistant` | an assistant answer, sometimes with a thinking block                            |
 * | `tools`     | one assistant message with 1–3 calls, OpenAI style (`tool_calls` + `tool` messages) or Anthropic style (`tool_use` blocks + a user message of `tool_result` blocks, sometimes split in two, sometimes with a text block); results in any order; some results huge (8–30k chars); some missing (a crash mid-tool); sometimes a message stored between the results |
 * | `system`    | a system message in the middle without a scope (an instruction stored late)     |
 * | `note`      | a hook turn note on its own (a tool:post injection: system/developer, `metadata.scope: "turn"`), sometimes critical |
 * | `orphan`    | a result whose call does not exist: a `tool` message, or a user message with an orphan `tool_result` block and some text |
 *
 * Any user, assistant, call or result may be critical (~6 %) or ephemeral (~8 %); orphans never
 * are critical (an orphan is dropped from every window, which a critical message never is).
 * Every message has a unique `metadata.id`. The same seed gives the same history.
 */
import fc from "fast-check";
import type { ContentBlock, Message, ToolDefinition, ToolResultBlock } from "@amplifier-ts/contracts";

export interface ToolHistoryOptions {
  /** Most steps after the system prompt (default 24). */
  maxSteps?: number;
  /** Tool steps in these styles (default both). */
  styles?: readonly ("openai" | "anthropic")[];
  /** Allow critical messages (default true). */
  critical?: boolean;
  /** Allow ephemeral messages (default true). */
  ephemeral?: boolean;
  /** Allow huge tool results (default true). */
  hugeResults?: boolean;
  /** Allow calls without results (default true). */
  crashes?: boolean;
  /** Allow orphan results (default true). */
  orphans?: boolean;
}

interface Flags {
  critical: boolean;
  ephemeral: boolean;
}

interface CallSpec extends Flags {
  resultChars: number;
  missing: boolean;
  resultCritical: boolean;
}

interface NoteSpec {
  chars: number;
  role: "system" | "developer";
  critical: boolean;
}

type Step =
  | ({ kind: "user"; chars: number; image: boolean; notes: NoteSpec[] } & Flags)
  | ({ kind: "note" } & NoteSpec)
  | ({ kind: "assistant"; chars: number; thinking: boolean } & Flags)
  | ({ kind: "tools"; style: "openai" | "anthropic"; calls: CallSpec[]; order: number; interleave: boolean; split: boolean; text: boolean; preamble: number } & Flags)
  | { kind: "system"; chars: number }
  | { kind: "orphan"; style: "openai" | "anthropic"; chars: number };

const FILLER =
  "The quick brown fox jumps over the lazy dog while the build runs; tests pass, lint warns, " +
  "src/invoices/create-invoice.ts:42 rounds half-even, and the migration adds a currency column. ";

/** Random tool-using histories (see the table above). */
/**
 * 0–4 tool definitions as an agent sends them: unique names, descriptions from none to ~2k
 * characters, parameters with 1–6 properties (some with enums and nested objects) — so tools
 * alone are anything from nothing to a large part of a small budget.
 */
export function toolDefinitionsArbitrary(): fc.Arbitrary<ToolDefinition[]> {
  const property = fc.record({ description: fc.integer({ min: 0, max: 40 }), kind: fc.constantFrom("string", "integer", "enum", "object") });
  const tool = fc.record({ words: fc.integer({ min: 0, max: 300 }), properties: fc.array(property, { minLength: 1, maxLength: 6 }) });
  return fc.array(tool, { maxLength: 4 }).map((tools) =>
    tools.map(({ words, properties }, i): ToolDefinition => ({
      type: "function",
      function: {
        name: `tool_${i}`,
        ...(words > 0 ? { description: "Reads a file of the workspace and returns it. ".repeat(Math.ceil(words / 8)).trim() } : {}),
        parameters: {
          type: "object",
          properties: Object.fromEntries(properties.map((p, k) => [`arg_${k}`, toolProperty(p.kind, p.description)])),
          required: ["arg_0"],
        },
      },
    })),
  );
}

function toolProperty(kind: string, words: number): Record<string, unknown> {
  const description = words > 0 ? { description: "the value to use ".repeat(Math.ceil(words / 4)).trim() } : {};
  if (kind === "enum") return { type: "string", enum: ["fast", "thorough", "off"], ...description };
  if (kind === "object") return { type: "object", properties: { depth: { type: "integer" }, follow: { type: "boolean" } }, ...description };
  return { type: kind, ...description };
}

export function toolHistoryArbitrary(options: ToolHistoryOptions = {}): fc.Arbitrary<Message[]> {
  const styles = options.styles ?? ["openai", "anthropic"];
  const rare = (allowed: boolean | undefined, percent: number) =>
    allowed === false ? fc.constant(false) : fc.integer({ min: 0, max: 99 }).map((n) => n < percent);
  const flags = { critical: rare(options.critical, 6), ephemeral: rare(options.ephemeral, 8) };
  const chars = fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 0, max: 400 }) }, { weight: 2, arbitrary: fc.integer({ min: 400, max: 3_000 }) });
  const resultChars = options.hugeResults === false ? chars : fc.oneof({ weight: 12, arbitrary: chars }, { weight: 1, arbitrary: fc.integer({ min: 8_000, max: 30_000 }) });
  const call: fc.Arbitrary<CallSpec> = fc.record({
    ...flags,
    resultChars,
    missing: rare(options.crashes, 10),
    resultCritical: rare(options.critical, 4),
  });
  const style = fc.constantFrom(...styles);
  const note: fc.Arbitrary<NoteSpec> = fc.record({
    chars: fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 0, max: 300 }) }, { weight: 1, arbitrary: fc.integer({ min: 300, max: 2_000 }) }),
    role: fc.constantFrom("system" as const, "developer" as const),
    critical: rare(options.critical, 10),
  });
  const notes = fc.oneof({ weight: 3, arbitrary: fc.constant([] as NoteSpec[]) }, { weight: 1, arbitrary: fc.array(note, { minLength: 1, maxLength: 2 }) });
  const step: fc.Arbitrary<Step> = fc.oneof(
    { weight: 4, arbitrary: fc.record({ kind: fc.constant("user" as const), chars, image: rare(true, 10), notes, ...flags }) },
    { weight: 1, arbitrary: note.map((spec) => ({ kind: "note" as const, ...spec })) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant("assistant" as const), chars, thinking: rare(true, 15), ...flags }) },
    {
      weight: 6,
      arbitrary: fc.record({
        kind: fc.constant("tools" as const),
        style,
        calls: fc.array(call, { minLength: 1, maxLength: 3 }),
        order: fc.nat(5),
        interleave: rare(true, 8),
        split: rare(true, 20),
        text: rare(true, 20),
        preamble: fc.integer({ min: 0, max: 120 }),
        ...flags,
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("system" as const), chars: fc.integer({ min: 0, max: 300 }) }) },
    ...(options.orphans === false ? [] : [{ weight: 1, arbitrary: fc.record({ kind: fc.constant("orphan" as const), style, chars: fc.integer({ min: 0, max: 500 }) }) }]),
  );
  return fc
    .record({
      system: fc.option(fc.record({ chars: fc.integer({ min: 1, max: 600 }), critical: rare(options.critical, 30) }), { nil: undefined }),
      greeting: rare(true, 15),
      steps: fc.array(step, { maxLength: options.maxSteps ?? 24 }),
    })
    .map(({ system, greeting, steps }) => buildHistory(system, greeting, steps));
}

function buildHistory(system: { chars: number; critical: boolean } | undefined, greeting: boolean, steps: Step[]): Message[] {
  const out: Message[] = [];
  let seq = 0;
  const meta = (f?: Partial<Flags>) => ({
    id: `m${++seq}`,
    ...(f?.critical ? { critical: true } : {}),
    ...(f?.ephemeral ? { ephemeral: true } : {}),
  });
  const text = (label: string, n: number) => (label + " " + FILLER.repeat(Math.ceil(n / FILLER.length) + 1)).slice(0, Math.max(label.length, n));
  if (system) out.push({ role: "system", content: text("You are a careful coding agent.", system.chars), metadata: meta(system) });
  if (greeting) out.push({ role: "assistant", content: "Hello! What shall we build today?", metadata: meta() });

  for (const s of steps) {
    const n = seq + 1;
    switch (s.kind) {
      case "user": {
        for (const spec of s.notes) out.push(noteMessage(spec, `Todo ${seq + 1}:`, meta({ critical: spec.critical }), text));
        const prompt = text(`Request ${seq + 1}:`, s.chars);
        const content: Message["content"] = s.image ? [{ type: "text", text: prompt }, { type: "image", width: 512, height: 512 }] : prompt;
        out.push({ role: "user", content, metadata: meta(s) });
        break;
      }
      case "assistant": {
        const answer = text(`Answer ${n}:`, s.chars);
        const content: Message["content"] = s.thinking ? [{ type: "thinking", thinking: text("Let me think.", 80) }, { type: "text", text: answer }] : answer;
        out.push({ role: "assistant", content, metadata: meta(s) });
        break;
      }
      case "system":
        out.push({ role: "system", content: text(`Note ${n}:`, s.chars), metadata: meta() });
        break;
      case "note":
        out.push(noteMessage(s, `Lint ${n}:`, meta({ critical: s.critical }), text));
        break;
      case "orphan":
        if (s.style === "openai") out.push({ role: "tool", tool_call_id: `call_gone_${n}`, content: text("stale output", s.chars), metadata: meta() });
        else
          out.push({
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: `toolu_gone_${n}`, content: text("stale output", s.chars) },
              { type: "text", text: "Also, please continue." },
            ],
            metadata: meta(),
          });
        break;
      case "tools":
        pushToolStep(out, s, n, meta, text);
        break;
    }
  }
  return out;
}

/** A hook's stored injection after the session started, as processHookResult stores it. */
function noteMessage(spec: NoteSpec, label: string, metadata: NonNullable<Message["metadata"]>, text: (label: string, n: number) => string): Message {
  return { role: spec.role, content: text(label, spec.chars), metadata: { ...metadata, source: "hook", hook: "arbitrary", event: "prompt:submit", scope: "turn" } };
}

function pushToolStep(
  out: Message[],
  s: Extract<Step, { kind: "tools" }>,
  n: number,
  meta: (f?: Partial<Flags>) => NonNullable<Message["metadata"]>,
  text: (label: string, n: number) => string,
): void {
  const ids = s.calls.map((_, i) => (s.style === "openai" ? `call_${n}_${i}` : `toolu_${n}_${i}`));
  const preamble = s.preamble > 0 ? text("Let me look.", s.preamble) : undefined;
  if (s.style === "openai") {
    out.push({
      role: "assistant",
      content: preamble ?? null,
      tool_calls: ids.map((id, i) => ({ id, type: "function" as const, function: { name: "read_file", arguments: JSON.stringify({ path: `src/file-${n}-${i}.ts` }) } })),
      metadata: meta(s),
    });
  } else {
    const uses: ContentBlock[] = ids.map((id, i) => ({ type: "tool_use", id, name: "read_file", input: { path: `src/file-${n}-${i}.ts` } }));
    out.push({ role: "assistant", content: preamble ? [{ type: "text", text: preamble }, ...uses] : uses, metadata: meta(s) });
  }
  // Results in a rotated order, missing ones left out; maybe a message stored between them.
  const order = s.calls.map((_, i) => (i + s.order) % s.calls.length).filter((i) => !s.calls[i]!.missing);
  const interleaveAt = s.interleave ? Math.min(1, order.length) : -1;
  const injected = (): Message => ({ role: "user", content: text("(hook) build finished", 60), metadata: { ...meta(), ephemeral: true } });
  if (s.style === "openai") {
    order.forEach((i, k) => {
      if (k === interleaveAt) out.push(injected());
      const c = s.calls[i]!;
      out.push({ role: "tool", tool_call_id: ids[i]!, name: "read_file", content: text(`output ${ids[i]}:`, c.resultChars), metadata: meta({ critical: c.resultCritical, ephemeral: c.ephemeral }) });
    });
    return;
  }
  const blocks = order.map((i): ToolResultBlock => ({ type: "tool_result", tool_use_id: ids[i]!, content: text(`output ${ids[i]}:`, s.calls[i]!.resultChars) }));
  const critical = order.some((i) => s.calls[i]!.resultCritical);
  const groups = s.split && blocks.length > 1 ? [blocks.slice(0, 1), blocks.slice(1)] : [blocks];
  groups.forEach((group, k) => {
    if (group.length === 0) return;
    if (k === 1 && interleaveAt >= 0) out.push(injected());
    const content: ContentBlock[] = s.text && k === groups.length - 1 ? [...group, { type: "text", text: "Keep going." }] : group;
    out.push({ role: "user", content, metadata: meta({ critical }) });
  });
}
