/**
 * checkWindowInvariants: a pure, implementation-independent check of one window against the
 * history it was assembled from (contracts/WINDOW.md). Every context module's windows are held
 * to it by describeContextManagerContract; it reads messages only, never a module's internals.
 *
 * It returns the violations, one string each, prefixed by the check's name; `[]` means valid.
 *
 * | check                  | a window must …                                                                 |
 * |------------------------|----------------------------------------------------------------------------------|
 * | `fits-budget`          | cost Σ countMessage + replyPriming + countTools(tools) ≤ budget                  |
 * | `request-only-last`    | end with `extraMessages`, as given                                               |
 * | `known-messages`       | hold only stored messages (matched by metadata.id, else by sent fields) and messages marked `metadata.window.synthetic` |
 * | `no-duplicates`        | hold each stored message at most once                                            |
 * | `copies`               | hold copies, or stored objects only frozen (Object.isFrozen: a caller cannot change the history through the window) |
 * | `instructions-first`   | start with every instruction of the history (system/developer, not a turn note), verbatim, in stored order, and hold no other |
 * | `placeholder-position` | hold a placeholder (`synthetic: "omitted-history"`) only right after the instructions |
 * | `critical-kept`        | hold every critical message verbatim (only orphan tool_result blocks may be removed, marked `repaired`); a critical message that is nothing but orphan results is exempt |
 * | `results-follow-calls` | follow each call with exactly its results (each id once), and hold no result elsewhere — OpenAI and Anthropic styles |
 * | `results-match-history`| pair a stored result with the very call it answers in the history                |
 * | `real-results-kept`    | never answer a call with a synthetic result when the history holds its real one   |
 * | `stored-order`         | keep stored order for everything but instructions (first) and results (after their call) — turn notes included |
 * | `first-is-user-turn`   | where the history has a user turn, put a user turn first after the instructions — or turn notes directly followed by a stored user turn (the notes that open it; stored order puts them before it) |
 * | `last-prompt-kept`     | where the history has a user turn, hold the latest one (whole, or truncated and marked): a window without the current prompt is not a valid request |
 * | `changes-marked`       | mark a stored message it changed: `truncated` (with the `[… N chars truncated …]` marker), `repaired`, `spilled` (an excerpt naming the `handle` its whole text is stored under), or `thinkingDropped` (an assistant message of a turn before the latest user turn, exactly the stored one without all of its thinking / redacted_thinking blocks — never some of them) |
 *
 * A turn NOTE is a system/developer message with `metadata.scope: "turn"` (a hook's injection
 * after the session started): conversation, not an instruction — it is held to stored order and
 * may be absent like any conversation message, but never hoisted among the instructions.
 * Whether a window message is an instruction or a note is read from the stored message it comes
 * from (so a window copy that lost its metadata is still judged right).
 *
 * Pairing in the history: a result answers the most recent earlier call of its id, if that call
 * has no result for the id yet; otherwise it is an orphan. A user turn is a user message with
 * content besides tool_result blocks and no result that answers a call (a message that answers
 * a call must follow it, so it can never come first).
 */
import type { ContentBlock, Message } from "@amplifier-ts/contracts";
import type { ToolDefinition } from "@amplifier-ts/contracts";

export interface WindowCheckCounter {
  countMessage(message: Message): number;
  countTools(tools: readonly ToolDefinition[]): number;
  readonly replyPriming: number;
}

export interface WindowCheckOptions {
  budget: number;
  counter: WindowCheckCounter;
  tools?: readonly ToolDefinition[];
  /** Request-only messages the window was asked to end with. */
  extraMessages?: readonly Message[];
}

const MARKER = /\[… \d+ chars truncated …\]/;

export function checkWindowInvariants(history: readonly Message[], window: readonly Message[], options: WindowCheckOptions): string[] {
  const problems: string[] = [];
  const fail = (check: string, detail: string) => problems.push(`${check}: ${detail}`);
  const { budget, counter, tools, extraMessages = [] } = options;

  let cost = counter.replyPriming + (tools?.length ? counter.countTools(tools) : 0);
  for (const m of window) cost += counter.countMessage(m);
  if (cost > budget) fail("fits-budget", `the window costs ${cost} tokens, the budget is ${budget}`);

  const bodyLength = window.length - extraMessages.length;
  if (bodyLength < 0 || extraMessages.some((m, i) => sent(window[bodyLength + i]!) !== sent(m))) {
    fail("request-only-last", "the window does not end with the request-only messages");
  }
  const body = window.slice(0, Math.max(0, bodyLength));
  const pairing = pairHistory(history);
  const origins = resolveOrigins(history, body, fail);

  // --- instructions, placeholder ---------------------------------------------------------
  const instructions = history.map((m, i) => (isInstruction(m) ? i : -1)).filter((i) => i >= 0);
  /** The stored message a window message comes from (itself when synthetic or unknown). */
  const source = (k: number): Message => {
    const h = origins[k];
    return typeof h === "number" ? history[h]! : body[k]!;
  };
  instructions.forEach((h, k) => {
    if (origins[k] !== h) fail("instructions-first", `stored message ${h} (${history[h]!.role}) is not at window position ${k}`);
    else if (sent(body[k]!) !== sent(history[h]!)) fail("instructions-first", `stored message ${h} was changed`);
  });
  body.forEach((m, k) => {
    if (k >= instructions.length && isInstruction(source(k))) fail("instructions-first", `a ${m.role} message at window position ${k}, after the others`);
    if (syntheticKind(m) === "omitted-history" && k !== instructions.length) fail("placeholder-position", `placeholder at window position ${k}`);
  });

  // --- critical ----------------------------------------------------------------------------
  const where = new Map<number, number>();
  origins.forEach((h, k) => typeof h === "number" && where.set(h, k));
  history.forEach((m, h) => {
    if (m.metadata?.critical !== true || isInstruction(m) || pairing.onlyOrphans.has(h)) return;
    const k = where.get(h);
    if (k === undefined) return void fail("critical-kept", `critical stored message ${h} (${describe(m)}) is missing`);
    const w = body[k]!;
    if (sent(w) === sent(m)) return;
    const repairedOnly = windowMark(w)?.repaired !== undefined && sent(w) === sent(withoutOrphanBlocks(m, pairing.orphanBlockIds.get(h)));
    if (!repairedOnly) fail("critical-kept", `critical stored message ${h} (${describe(m)}) was changed`);
  });

  // --- tool pairing ------------------------------------------------------------------------
  const inRun = new Set<number>();
  body.forEach((m, k) => {
    const calls = callIds(m);
    if (calls.length === 0) return;
    const expected = new Set(calls);
    const seen = new Map<string, number>();
    let j = k + 1;
    for (; j < body.length && isResultCarrier(body[j]!); j++) {
      inRun.add(j);
      for (const id of resultIds(body[j]!)) {
        if (!expected.has(id)) fail("results-follow-calls", `window position ${j} answers ${id}, not a call of position ${k}`);
        if (seen.has(id)) fail("results-follow-calls", `call ${id} answered twice after window position ${k}`);
        seen.set(id, j);
        checkResultOrigin(id, j, k);
      }
    }
    for (const id of expected) if (!seen.has(id)) fail("results-follow-calls", `call ${id} at window position ${k} has no result right after it`);
  });
  body.forEach((m, k) => {
    if (isResultCarrier(m) && !inRun.has(k)) fail("results-follow-calls", `result at window position ${k} (${resultIds(m).join(", ")}) does not follow its call`);
  });

  function checkResultOrigin(id: string, j: number, k: number): void {
    const resultOrigin = origins[j];
    const callOrigin = origins[k];
    if (typeof callOrigin !== "number") return;
    if (typeof resultOrigin === "number") {
      const answers = pairing.callOf.get(`${resultOrigin}:${id}`);
      if (answers !== callOrigin) fail("results-match-history", `stored result ${resultOrigin} (${id}) follows stored call ${callOrigin}, but it answers ${answers ?? "no call"}`);
    } else if (resultOrigin === "synthetic" && pairing.answered.has(`${callOrigin}:${id}`)) {
      fail("real-results-kept", `call ${id} (stored ${callOrigin}) got a synthetic result though the history holds its result`);
    }
  }

  // --- order, first message, marks ----------------------------------------------------------
  let last = -1;
  body.forEach((m, k) => {
    const h = origins[k];
    if (typeof h !== "number" || isResultCarrier(m) || isInstruction(history[h]!)) return;
    if (h < last) fail("stored-order", `stored message ${h} at window position ${k} comes after stored message ${last}`);
    last = Math.max(last, h);
  });
  if (history.some((m, h) => isUserTurn(m) && !pairing.carriers.has(h))) {
    // The notes that open a turn (a prompt:submit hook stores them before the prompt) may come first.
    let k = instructions.length;
    while (k < body.length && isTurnNote(source(k))) k++;
    const first = body[k];
    if (k > instructions.length) {
      // Stored order (checked above) makes them notes stored before that turn, with nothing kept between.
      if (first === undefined || !isUserTurn(first) || isResultCarrier(first) || typeof origins[k] !== "number") {
        fail("first-is-user-turn", `the window opens with notes not followed by the user turn they open (${first === undefined ? "nothing" : describe(first)} follows)`);
      }
    } else if (first !== undefined && (!isUserTurn(first) || isResultCarrier(first))) fail("first-is-user-turn", `the first non-system message is ${describe(first)}`);
  }
  const lastTurn = history.findLastIndex((m, h) => isUserTurn(m) && !pairing.carriers.has(h));
  if (lastTurn >= 0 && !origins.includes(lastTurn)) fail("last-prompt-kept", `the latest user turn (stored message ${lastTurn}, ${describe(history[lastTurn]!)}) is not in the window`);
  body.forEach((m, k) => {
    const h = origins[k];
    if (typeof h !== "number" || sent(m) === sent(history[h]!)) return;
    const mark = windowMark(m);
    if (mark?.thinkingDropped && !mark.truncated && !mark.repaired) {
      if (h > lastTurn || sent(m) !== sent(withoutThinking(history[h]!))) fail("changes-marked", `stored message ${h} is marked thinkingDropped but is not that message of an earlier turn without all of its thinking blocks`);
      return;
    }
    if (!mark?.truncated && !mark?.repaired && !mark?.spilled) fail("changes-marked", `stored message ${h} was changed without a truncated/repaired/spilled mark`);
    if (mark?.spilled && !mark.truncated && !JSON.stringify(m.content).includes(String(mark.spilled.handle))) fail("changes-marked", `spilled message at window position ${k} does not name its handle ${JSON.stringify(mark.spilled.handle)}`);
    if (mark?.truncated && !MARKER.test(JSON.stringify(m.content))) fail("changes-marked", `truncated message at window position ${k} has no "[… N chars truncated …]" marker`);
  });
  return problems;
}

interface HistoryPairing {
  /** `${resultIndex}:${id}` → index of the call it answers. */
  callOf: Map<string, number>;
  /** `${callIndex}:${id}` for every call id the history answers. */
  answered: Set<string>;
  /** Stored messages that are nothing but orphan results. */
  onlyOrphans: Set<number>;
  /** Stored messages carrying at least one paired result (never a user turn). */
  carriers: Set<number>;
  /** Stored index → ids of its orphan tool_result blocks. */
  orphanBlockIds: Map<number, Set<string>>;
}

function pairHistory(history: readonly Message[]): HistoryPairing {
  const latest = new Map<string, number>();
  const pairing: HistoryPairing = { callOf: new Map(), answered: new Set(), onlyOrphans: new Set(), carriers: new Set(), orphanBlockIds: new Map() };
  history.forEach((m, h) => {
    let orphans = 0;
    const ids = resultIds(m);
    for (const id of ids) {
      const call = latest.get(id);
      if (call !== undefined && !pairing.answered.has(`${call}:${id}`)) {
        pairing.answered.add(`${call}:${id}`);
        pairing.callOf.set(`${h}:${id}`, call);
        pairing.carriers.add(h);
      } else {
        orphans++;
        if (m.role === "user") pairing.orphanBlockIds.set(h, (pairing.orphanBlockIds.get(h) ?? new Set()).add(id));
      }
    }
    if ((m.role === "tool" && orphans > 0) || (ids.length > 0 && orphans === ids.length && !isUserTurn(m))) pairing.onlyOrphans.add(h);
    for (const id of callIds(m)) latest.set(id, h);
  });
  return pairing;
}

type Origin = number | "synthetic" | undefined;

function resolveOrigins(history: readonly Message[], body: readonly Message[], fail: (c: string, d: string) => void): Origin[] {
  const byId = new Map<string, number>();
  const duplicateIds = new Set<string>();
  history.forEach((m, h) => {
    const id = m.metadata?.id;
    if (typeof id === "string") (byId.has(id) ? duplicateIds.add(id) : byId.set(id, h));
  });
  // By content, for window messages without a (unique) id — built only when one needs it: it
  // serialises the whole history, which at 100k messages costs seconds per window checked.
  let bySent: Map<string, number[]> | undefined;
  const byContent = (m: Message): number[] | undefined => {
    if (!bySent) {
      bySent = new Map();
      history.forEach((stored, h) => {
        const key = sent(stored);
        const list = bySent!.get(key);
        if (list) list.push(h);
        else bySent!.set(key, [h]);
      });
    }
    return bySent.get(sent(m));
  };
  const historyObjects = new Set<unknown>(history);
  const used = new Set<number>();
  return body.map((m, k) => {
    if (historyObjects.has(m) && !Object.isFrozen(m)) fail("copies", `window position ${k} is a stored message object that is not frozen (hand out a copy, or the frozen message)`);
    if (syntheticKind(m) !== undefined) return "synthetic";
    const id = m.metadata?.id;
    let h = typeof id === "string" && !duplicateIds.has(id) ? byId.get(id) : undefined;
    if (h === undefined) h = byContent(m)?.find((i) => !used.has(i));
    if (h === undefined) {
      fail("known-messages", `window position ${k} (${describe(m)}) is neither stored nor marked synthetic`);
      return undefined;
    }
    if (used.has(h)) fail("no-duplicates", `stored message ${h} appears twice`);
    used.add(h);
    return h;
  });
}

/** An instruction: a system/developer message that is not a turn note — kept first in every window. */
export function isInstruction(m: Message): boolean {
  return (m.role === "system" || m.role === "developer") && m.metadata?.scope !== "turn";
}

/** A hook's turn note: system/developer with metadata.scope "turn" — conversation of its turn. */
export function isTurnNote(m: Message): boolean {
  return (m.role === "system" || m.role === "developer") && m.metadata?.scope === "turn";
}

function callIds(m: Message): string[] {
  if (m.role !== "assistant") return [];
  const ids = (m.tool_calls ?? []).map((c) => c.id);
  if (Array.isArray(m.content)) for (const b of m.content) if (b.type === "tool_use") ids.push(b.id);
  return ids;
}

function resultIds(m: Message): string[] {
  if (m.role === "tool") return [m.tool_call_id ?? ""];
  if (m.role !== "user" || !Array.isArray(m.content)) return [];
  return m.content.filter((b): b is Extract<ContentBlock, { type: "tool_result" }> => b.type === "tool_result").map((b) => b.tool_use_id);
}

function isResultCarrier(m: Message): boolean {
  return m.role === "tool" || resultIds(m).length > 0;
}

function isUserTurn(m: Message): boolean {
  return m.role === "user" && (!Array.isArray(m.content) || m.content.some((b) => b.type !== "tool_result"));
}

function withoutOrphanBlocks(m: Message, orphanIds: Set<string> | undefined): Message {
  if (!orphanIds || !Array.isArray(m.content)) return m;
  return { ...m, content: m.content.filter((b) => b.type !== "tool_result" || !orphanIds.has(b.tool_use_id)) };
}

function windowMark(m: Message): { synthetic?: string; truncated?: unknown; repaired?: unknown; spilled?: { handle?: unknown }; thinkingDropped?: unknown } | undefined {
  const mark = m.metadata?.window;
  return typeof mark === "object" && mark !== null ? (mark as { synthetic?: string }) : undefined;
}

function syntheticKind(m: Message): string | undefined {
  return windowMark(m)?.synthetic;
}

/** The message without its thinking and redacted_thinking blocks (all of them). */
function withoutThinking(m: Message): Message {
  return Array.isArray(m.content) ? { ...m, content: m.content.filter((b) => b?.type !== "thinking" && b?.type !== "redacted_thinking") } : m;
}

/** What the provider receives of a message (metadata is never sent). */
function sent(m: Message): string {
  return JSON.stringify([m.role, m.content, m.name ?? null, m.tool_calls ?? null, m.tool_call_id ?? null]);
}

function describe(m: Message): string {
  const id = m.metadata?.id;
  return `${m.role}${typeof id === "string" ? ` ${id}` : ""}`;
}
