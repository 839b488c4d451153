/**
 * The ladder: how a window is made to fit when even the latest turn start does not (cut rule 5).
 * Each step is tried only when the previous ones are not enough; the first configuration whose
 * exact token count fits the budget B wins.
 *
 * | step | level               | what it does                                                                 |
 * |------|---------------------|------------------------------------------------------------------------------|
 * | 1    | `cap-results`       | truncate the largest tool results in the kept part to a common cap (head and tail kept), the cap lowered in halving steps down to the floor |
 * | 2    | `drop-older`        | also drop whole units inside the last turn, oldest first, keeping the turn's user prompt (a tool call always goes with all its results); cut down to τ·B at the floor, then the cap is raised again as far as B allows |
 * | 3    | `results-to-marker` | lower the cap below the floor, down to a bare marker                         |
 * | 4    | `cap-notes`         | truncate the notes that open the last turn (a hook's note at prompt:submit) to a common cap, head and tail kept; the user message stays whole |
 * | 5    | `cap-prompt`        | notes at their bare markers, and the user message itself truncated, head and tail kept, down to its marker |
 *
 * The prompt is never dropped: a window without the current prompt is not a valid request. Nor is
 * the TURN IN PROGRESS (HistoryIndex.inProgressGroup: the latest tool calls, their thinking, their
 * results, and the notes after them): step 2 drops units only below it, steps 3–5 keep it with its
 * results capped like any other (down to their markers) and its calls and thinking untouched —
 * without it the model would call the tool again, and signed thinking must reach the provider
 * byte-identical until the tool turn completes. When not even step 5 at the markers fits,
 * climbLadder returns an `Unfit` with the numbers and the assembler throws BUDGET_TOO_SMALL.
 *
 * The last turn's prompt unit is its user message preceded by the hook notes stored right before
 * it (history-index.ts): steps 1–3 keep those notes whole with the prompt, steps 4–5 truncate
 * them before the user message; a note stored later in the turn (after a tool call, say) is a
 * unit like any other, dropped by step 2 oldest first.
 *
 * Never touched: instructions, critical messages (a critical group's non-critical results are
 * capped like any other), tool calls (their arguments must stay valid JSON), synthetic results.
 * Without a non-critical prompt, step 3 at cap 0 costs exactly the minimum that BUDGET_TOO_SMALL
 * is checked against, so once that check passed the ladder ends with a window that fits; with
 * one, the minimum also holds the prompt unit at its markers (step 5's last resort).
 *
 * Cache-friendliness: caps are powers of two times the floor, so the truncated text of a result
 * changes only when the cap crosses a level; the step-2 cut is remembered ("sticky") and kept
 * while the window at the floor stays ≤ θ·B, like the cut itself (cut-policy.ts).
 */
import type { Message } from "@amplifier-ts/contracts";
import type { HistoryIndex } from "./history-index.js";
import { promptPart } from "./truncate-message.js";
import type { TokenLedger } from "./token-ledger.js";

export type LadderLevel = "cap-results" | "drop-older" | "results-to-marker" | "cap-notes" | "cap-prompt";

/** Estimates of a truncation may be off by rounding at the cut; plan with this margin per part. */
const PLAN_SLACK = 3;

export interface LadderInput {
  readonly index: HistoryIndex;
  readonly ledger: TokenLedger;
  /** The latest cut point (unit index). */
  readonly cut: number;
  readonly budget: number;
  readonly threshold: number;
  readonly target: number;
  /** Results are capped no lower than this before whole units are dropped. */
  readonly floor: number;
  /** Instructions, request-only messages, priming and tools. */
  readonly fixedTokens: number;
  readonly placeholderTokens: number;
  readonly sticky: StickyDrop | undefined;
}

/** The step-2 cut remembered between windows. */
export interface StickyDrop {
  readonly cut: number;
  readonly from: number;
}

/** Which units a window keeps, what it truncates, and what it costs. */
export interface WindowPlan {
  /** Non-critical units at or after `from` are kept; critical units always are. */
  readonly from: number;
  /** A unit kept besides them (the last turn's prompt under the ladder), or -1. */
  readonly prompt: number;
  /** Member message → the truncated copy the window sends instead. */
  readonly replacements: ReadonlyMap<Message, Message>;
  /** Exact request tokens. */
  readonly tokens: number;
  readonly placeholder: boolean;
  readonly level?: LadderLevel;
  readonly cap?: number;
  readonly sticky?: StickyDrop;
}

/** Not even the last turn's prompt at its markers (and the turn in progress at its smallest) fits: the numbers for BUDGET_TOO_SMALL. */
export interface Unfit {
  readonly unfit: true;
  /** Tokens of the smallest window that keeps the prompt and the turn in progress. */
  readonly required: number;
  /** The prompt unit at its smallest (its notes and user message as bare markers, or whole when shorter); 0 when there is no non-critical prompt. */
  readonly promptMinimumTokens: number;
  /** The turn in progress at its smallest (results at their markers, calls and thinking whole, the notes after it); 0 when there is none. */
  readonly inProgressMinimumTokens: number;
}

interface Candidate {
  readonly message: Message;
  readonly tokens: number;
  /** Planning estimate of the saving at each cap is computed from these. */
  readonly parts: readonly { readonly tokens: number; readonly markerTokens: number }[];
}

export function climbLadder(input: LadderInput): WindowPlan | Unfit {
  const { index, ledger, cut, budget } = input;
  const n = index.units.length;
  const prompt = index.units[cut]?.kind === "turn" ? cut : -1;
  const regionStart = prompt >= 0 ? cut + 1 : cut;
  const promptCritical = prompt >= 0 && index.units[prompt]!.critical;
  // Units from `end` on are the turn in progress and the notes after it: never dropped.
  const group = index.inProgressGroup;
  const end = group >= regionStart ? group : n;

  // Steps 1–2 (the sticky step-2 cut is tried first: step 1 cannot succeed for a turn that only grew).
  const sticky = input.sticky?.cut === cut ? input.sticky : undefined;
  if (!sticky) {
    if (regionCostAtFloor(input, regionStart, prompt, budget) <= budget) {
      const plan = bestCap(input, regionStart, prompt, "down-to-floor", "cap-results");
      if (plan) return plan;
    }
  }
  for (const remembered of sticky ? [sticky, undefined] : [undefined]) {
    const from = chooseDrop(input, regionStart, end, prompt, remembered);
    if (from === undefined) break;
    const plan = bestCap(input, from, prompt, "down-to-floor", "drop-older");
    if (plan) return { ...plan, sticky: { cut, from } };
  }
  // Step 3: everything droppable is gone; results below the floor.
  const below = bestCap(input, end, prompt, "below-floor", "results-to-marker");
  if (below) return below;
  if (prompt < 0 || promptCritical) {
    // No turn to keep apart (a critical prompt is pinned): at cap 0 this is exactly the checked
    // minimum plus the turn in progress at its smallest — it fits unless that turn does not.
    const last = bestCap(input, end, -1, "all", "results-to-marker", true)!;
    if (last.tokens <= budget || end === n) return last;
    return { unfit: true, required: last.tokens, promptMinimumTokens: 0, inProgressMinimumTokens: inProgressMinimum(input, end, last) };
  }
  // Step 4: the notes that open the turn, the user message whole; step 5: notes at their markers, the user message cut.
  return capNotes(input, prompt, end) ?? capPrompt(input, prompt, end);
}

/** Tokens the units from `end` on cost in `plan` (their results at the plan's cap). */
function inProgressMinimum(input: LadderInput, end: number, plan: WindowPlan): number {
  const { index, ledger } = input;
  let tokens = 0;
  for (let u = end; u < index.units.length; u++) {
    if (index.units[u]!.critical) continue;
    const members = ledger.memberTokens(u);
    index.units[u]!.emitted().forEach((m, i) => {
      const sent = plan.replacements.get(m.message);
      tokens += sent ? ledger.counter.countMessage(sent) : members[i]!;
    });
  }
  return tokens;
}
/** Caps to try, largest first: floor·2^k above the floor, floor/2^k below it, then 0. */
function capLevels(floor: number, largest: number, range: "down-to-floor" | "below-floor" | "all"): number[] {
  const above: number[] = [];
  for (let cap = floor; ; cap *= 2) {
    above.unshift(cap);
    if (cap >= largest) break;
  }
  above.unshift(Number.POSITIVE_INFINITY);
  const below: number[] = [];
  for (let cap = Math.floor(floor / 2); cap > 0; cap = Math.floor(cap / 2)) below.push(cap);
  below.push(0);
  if (range === "down-to-floor") return above;
  if (range === "below-floor") return below;
  return [...above, ...below];
}

/**
 * The largest cap (from `range`) whose plan fits B exactly; with `mustFit`, the last level is
 * returned regardless.
 */
function bestCap(
  input: LadderInput,
  from: number,
  prompt: number,
  range: "down-to-floor" | "below-floor" | "all",
  level: LadderLevel,
  mustFit = false,
): WindowPlan | undefined {
  const { budget } = input;
  const base = untruncatedTokens(input, from, prompt);
  const candidates = collectCandidates(input, from, prompt);
  const caps = capLevels(input.floor, maxPartTokens(candidates), range);
  for (let k = 0; k < caps.length; k++) {
    const cap = caps[k]!;
    const isLast = k === caps.length - 1;
    if (!(mustFit && isLast) && estimate(base, candidates, cap) > budget) continue;
    const plan = exactPlan(input, from, prompt, candidates, base, cap, level);
    if (plan.tokens <= budget || (mustFit && isLast)) return plan;
  }
  return undefined;
}

function exactPlan(
  input: LadderInput,
  from: number,
  prompt: number,
  candidates: readonly Candidate[],
  base: number,
  cap: number,
  level: LadderLevel,
): WindowPlan {
  const replacements = new Map<Message, Message>();
  let tokens = base;
  if (cap !== Number.POSITIVE_INFINITY) {
    for (const c of candidates) {
      const cut = input.ledger.atCap(c.message, c.tokens, cap);
      if (!cut) continue;
      replacements.set(c.message, cut.message);
      tokens -= c.tokens - cut.tokens;
    }
  }
  return { from, prompt, replacements, tokens, placeholder: needsPlaceholder(input.index, from, prompt), level, cap };
}

/** Tokens of a plan before truncation: fixed + placeholder + critical units + prompt + kept units. */
function untruncatedTokens(input: LadderInput, from: number, prompt: number): number {
  const { index, ledger } = input;
  let tokens = input.fixedTokens + ledger.criticalTokens() + ledger.suffixTokens(from);
  if (prompt >= 0 && !index.units[prompt]!.critical) tokens += ledger.unitTokens(prompt);
  if (needsPlaceholder(index, from, prompt)) tokens += input.placeholderTokens;
  return tokens;
}

/** Non-critical, stored result members of the kept units: what a cap truncates. */
function collectCandidates(input: LadderInput, from: number, prompt: number): Candidate[] {
  const { index, ledger } = input;
  const out: Candidate[] = [];
  const visit = (u: number) => {
    const unit = index.units[u]!;
    if (unit.kind !== "group") return;
    const tokens = ledger.memberTokens(u);
    unit.emitted().forEach((m, i) => {
      if (m.result && !m.critical && !m.synthetic) out.push({ message: m.message, tokens: tokens[i]!, parts: ledger.partsOf(m.message) });
    });
  };
  for (const u of index.criticalUnits) if (u < from) visit(u);
  if (prompt >= 0 && prompt < from && !index.units[prompt]!.critical) visit(prompt);
  for (let u = from; u < index.units.length; u++) visit(u);
  return out;
}

function estimate(base: number, candidates: readonly Candidate[], cap: number): number {
  let tokens = base;
  for (const c of candidates) for (const p of c.parts) tokens -= saving(p, cap);
  return tokens;
}

function saving(part: { tokens: number; markerTokens: number }, cap: number): number {
  const kept = Math.max(cap, part.markerTokens);
  return part.tokens > kept ? Math.max(0, part.tokens - kept - PLAN_SLACK) : 0;
}

function maxPartTokens(candidates: readonly Candidate[]): number {
  let max = 0;
  for (const c of candidates) for (const p of c.parts) max = Math.max(max, p.tokens);
  return max;
}

/** Estimated tokens of a unit with its results at the floor. */
function unitAtFloor(input: LadderInput, u: number): number {
  const { index, ledger } = input;
  const unit = index.units[u]!;
  let tokens = ledger.unitTokens(u);
  if (unit.kind !== "group") return tokens;
  for (const m of unit.emitted()) {
    if (m.result && !m.critical && !m.synthetic) for (const p of ledger.partsOf(m.message)) tokens -= saving(p, input.floor);
  }
  return tokens;
}

/** Estimated tokens of the pinned part (fixed, placeholder, critical units, prompt) at the floor. */
function pinnedAtFloor(input: LadderInput, prompt: number, from: number): number {
  const { index } = input;
  let tokens = input.fixedTokens;
  for (const u of index.criticalUnits) tokens += unitAtFloor(input, u);
  if (prompt >= 0 && !index.units[prompt]!.critical) tokens += unitAtFloor(input, prompt);
  if (needsPlaceholder(index, from, prompt)) tokens += input.placeholderTokens;
  return tokens;
}

/** Step 1's quick test: the region [from, n) at the floor, counted from the newest unit, stopping past `limit`. */
function regionCostAtFloor(input: LadderInput, from: number, prompt: number, limit: number): number {
  const { index } = input;
  let tokens = pinnedAtFloor(input, prompt, from);
  for (let u = index.units.length - 1; u >= from && tokens <= limit; u--) {
    if (!index.units[u]!.critical) tokens += unitAtFloor(input, u);
  }
  return tokens;
}

/**
 * Step 2's cut inside the last turn: the sticky one while the window at the floor stays ≤ θ·B,
 * else the earliest unit from which the floor-capped window is ≤ τ·B (or, failing that, ≤ B).
 * Undefined when even dropping every droppable unit does not get under B at the floor.
 */
function chooseDrop(input: LadderInput, regionStart: number, end: number, prompt: number, sticky: StickyDrop | undefined): number | undefined {
  const { index, budget } = input;
  const n = index.units.length;
  const high = input.threshold * budget;
  const low = input.target * budget;
  if (sticky && sticky.from >= regionStart && sticky.from <= end) {
    if (regionCostAtFloor(input, sticky.from, prompt, high) <= high) return sticky.from;
  }
  let tokens = pinnedAtFloor(input, prompt, end);
  for (let u = n - 1; u >= end; u--) if (!index.units[u]!.critical) tokens += unitAtFloor(input, u);
  if (tokens > budget) return undefined;
  let toTarget: number | undefined = tokens <= low ? end : undefined;
  let toBudget = end;
  for (let u = end - 1; u >= regionStart; u--) {
    if (!index.units[u]!.critical) tokens += unitAtFloor(input, u);
    if (tokens > budget) break;
    toBudget = u;
    if (tokens <= low) toTarget = u;
  }
  return toTarget ?? toBudget;
}

/**
 * Step 4: results at 0, the user message whole, the notes that open its turn cut to a common cap
 * (head and tail kept, marked like any truncation). Undefined when that is not enough.
 */
function capNotes(input: LadderInput, prompt: number, end: number): WindowPlan | undefined {
  const { ledger, budget } = input;
  const { notes } = turnMembers(input, prompt);
  if (notes.length === 0) return undefined;
  const atZero = planAtZero(input, prompt, end, "cap-notes");
  const texts = notes.map((note) => {
    const part = promptPart(note.message);
    const text = ledger.counter.countText(part.text);
    return { ...note, part, text, framing: Math.max(0, note.tokens - text) };
  });
  const rest = atZero.tokens - texts.reduce((sum, t) => sum + t.tokens, 0);
  let room = budget - rest - texts.reduce((sum, t) => sum + t.framing + PLAN_SLACK, 0);
  for (let attempt = 0; attempt < 3 && room > 0; attempt++) {
    const cap = waterLevel(texts.map((t) => t.text), room);
    if (cap <= 0) return undefined;
    const replacements = new Map(atZero.replacements);
    let tokens = rest;
    for (const t of texts) {
      const cut = t.text > cap ? ledger.truncated(t.message, [{ part: t.part, maxTokens: cap }]) : undefined;
      if (cut && cut.tokens < t.tokens) {
        replacements.set(t.message, cut.message);
        tokens += cut.tokens;
      } else {
        tokens += t.tokens;
      }
    }
    if (tokens <= budget) return { ...atZero, replacements, tokens };
    room -= tokens - budget;
  }
  return undefined;
}

/**
 * Step 5: results at 0, the notes that open the turn at their markers, the user message cut to
 * what is left of B — down to its marker. When even that does not fit, the window would have no
 * prompt: an Unfit with the numbers (the assembler throws BUDGET_TOO_SMALL), never a silent drop.
 */
function capPrompt(input: LadderInput, prompt: number, end: number): WindowPlan | Unfit {
  const { ledger, budget } = input;
  const { notes, user } = turnMembers(input, prompt);
  const atZero = planAtZero(input, prompt, end, "cap-prompt");
  const replacements = new Map(atZero.replacements);
  let notesMinimum = 0;
  for (const note of notes) {
    const min = atMinimum(ledger, note);
    if (min.message !== note.message) replacements.set(note.message, min.message);
    notesMinimum += min.tokens;
  }
  const noteTokens = notes.reduce((sum, note) => sum + note.tokens, 0);
  // Everything but the user message, its notes at their minimum.
  const base = atZero.tokens - noteTokens - user.tokens + notesMinimum;
  const part = promptPart(user.message);
  // The prompt's framing (role, per-message tokens) stays; only its text is cut.
  const framing = Math.max(0, user.tokens - ledger.counter.countText(part.text));
  let room = budget - base;
  for (let attempt = 0; attempt < 3 && room > 0; attempt++) {
    const maxText = room - framing - PLAN_SLACK;
    if (maxText <= 0) break;
    const cut = ledger.truncated(user.message, [{ part, maxTokens: maxText }]);
    const tokens = base + cut.tokens;
    if (tokens <= budget) {
      replacements.set(user.message, cut.message);
      return { ...atZero, replacements, tokens };
    }
    room -= tokens - budget;
  }
  const userMinimum = atMinimum(ledger, user);
  const required = base + userMinimum.tokens;
  if (required > budget) {
    const inProgressMinimumTokens = end < input.index.units.length ? inProgressMinimum(input, end, atZero) : 0;
    return { unfit: true, required, promptMinimumTokens: notesMinimum + userMinimum.tokens, inProgressMinimumTokens };
  }
  if (userMinimum.message !== user.message) replacements.set(user.message, userMinimum.message);
  return { ...atZero, replacements, tokens: required };
}

/** The window at its smallest around the last turn: results at cap 0, the prompt unit untouched, the units from `end` (the turn in progress) kept. */
function planAtZero(input: LadderInput, prompt: number, end: number, level: LadderLevel): WindowPlan {
  const candidates = collectCandidates(input, end, prompt);
  return exactPlan(input, end, prompt, candidates, untruncatedTokens(input, end, prompt), 0, level);
}

interface Sent {
  readonly message: Message;
  readonly tokens: number;
}

/** A turn unit's notes (every member but the last) and its user message (the last), with their tokens. */
function turnMembers(input: LadderInput, prompt: number): { notes: Sent[]; user: Sent } {
  const members = input.index.units[prompt]!.emitted();
  const tokens = input.ledger.memberTokens(prompt);
  const sent = members.map((m, i) => ({ message: m.message, tokens: tokens[i]! }));
  return { notes: sent.slice(0, -1), user: sent.at(-1)! };
}

/** A note or prompt at its smallest: its text cut to the bare marker, or whole when that is smaller. */
function atMinimum(ledger: TokenLedger, sent: Sent): Sent {
  const cut = ledger.truncated(sent.message, [{ part: promptPart(sent.message), maxTokens: 0 }]);
  return cut.tokens < sent.tokens ? cut : sent;
}

/** The largest cap c with Σ min(v, c) ≤ room (water-filling: the largest texts are cut first, to one level). */
function waterLevel(values: readonly number[], room: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  let left = room;
  for (let i = 0; i < sorted.length; i++) {
    const share = Math.floor(left / (sorted.length - i));
    if (sorted[i]! > share) return share;
    left -= sorted[i]!;
  }
  return sorted.at(-1) ?? 0;
}

/**
 * A window must start with a user turn when the history has one: the first kept non-instruction
 * unit is the lowest of the first critical unit, the prompt and `from`; if it is not a turn, a
 * placeholder user message goes before it.
 */
export function needsPlaceholder(index: HistoryIndex, from: number, prompt: number): boolean {
  if (index.turnStarts.length === 0) return false;
  let first = from < index.units.length ? from : Number.POSITIVE_INFINITY;
  if (prompt >= 0) first = Math.min(first, prompt);
  const critical = index.criticalUnits[0];
  if (critical !== undefined) first = Math.min(first, critical);
  return first !== Number.POSITIVE_INFINITY && index.units[first]!.kind !== "turn";
}
