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
 * | 4    | `cap-prompt`        | truncate the user prompt itself, head and tail kept (the user message only: notes that open its turn stay whole) |
 * | 5    | `drop-prompt`       | drop the prompt, with the notes that open its turn: only instructions, critical units and request-only messages remain |
 *
 * The last turn's prompt unit is its user message preceded by the hook notes stored right before
 * it (history-index.ts): steps 1–4 keep those notes with the prompt; a note stored later in the
 * turn (after a tool call, say) is a unit like any other, dropped by step 2 oldest first.
 *
 * Never touched: instructions, critical messages (a critical group's non-critical results are
 * capped like any other), tool calls (their arguments must stay valid JSON), synthetic results.
 * Step 5 at cap 0 costs exactly the minimum that BUDGET_TOO_SMALL is checked against, so once
 * that check passed the ladder always ends with a window that fits.
 *
 * Cache-friendliness: caps are powers of two times the floor, so the truncated text of a result
 * changes only when the cap crosses a level; the step-2 cut is remembered ("sticky") and kept
 * while the window at the floor stays ≤ θ·B, like the cut itself (cut-policy.ts).
 */
import type { Message } from "@amplifier-ts/contracts";
import type { HistoryIndex } from "./history-index.js";
import { promptPart } from "./truncate-message.js";
import type { TokenLedger } from "./token-ledger.js";

export type LadderLevel = "cap-results" | "drop-older" | "results-to-marker" | "cap-prompt" | "drop-prompt";

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

interface Candidate {
  readonly message: Message;
  readonly tokens: number;
  /** Planning estimate of the saving at each cap is computed from these. */
  readonly parts: readonly { readonly tokens: number; readonly markerTokens: number }[];
}

export function climbLadder(input: LadderInput): WindowPlan {
  const { index, ledger, cut, budget } = input;
  const n = index.units.length;
  const prompt = index.units[cut]?.kind === "turn" ? cut : -1;
  const regionStart = prompt >= 0 ? cut + 1 : cut;
  const promptCritical = prompt >= 0 && index.units[prompt]!.critical;

  // Steps 1–2 (the sticky step-2 cut is tried first: step 1 cannot succeed for a turn that only grew).
  const sticky = input.sticky?.cut === cut ? input.sticky : undefined;
  if (!sticky) {
    if (regionCostAtFloor(input, regionStart, prompt, budget) <= budget) {
      const plan = bestCap(input, regionStart, prompt, "down-to-floor", "cap-results");
      if (plan) return plan;
    }
  }
  for (const remembered of sticky ? [sticky, undefined] : [undefined]) {
    const from = chooseDrop(input, regionStart, prompt, remembered);
    if (from === undefined) break;
    const plan = bestCap(input, from, prompt, "down-to-floor", "drop-older");
    if (plan) return { ...plan, sticky: { cut, from } };
  }
  // Step 3: everything droppable is gone; results below the floor.
  const below = bestCap(input, n, prompt, "below-floor", "results-to-marker");
  if (below) return below;
  // Step 4: the prompt itself.
  if (prompt >= 0 && !promptCritical) {
    const plan = capPrompt(input, prompt);
    if (plan) return plan;
  }
  // Step 5: no prompt. At cap 0 this is exactly the checked minimum, so it fits.
  return bestCap(input, n, -1, "all", "drop-prompt", true)!;
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
function chooseDrop(input: LadderInput, regionStart: number, prompt: number, sticky: StickyDrop | undefined): number | undefined {
  const { index, budget } = input;
  const n = index.units.length;
  const high = input.threshold * budget;
  const low = input.target * budget;
  if (sticky && sticky.from >= regionStart && sticky.from <= n) {
    if (regionCostAtFloor(input, sticky.from, prompt, high) <= high) return sticky.from;
  }
  let tokens = pinnedAtFloor(input, prompt, n);
  if (tokens > budget) return undefined;
  let toTarget: number | undefined = tokens <= low ? n : undefined;
  let toBudget = n;
  for (let u = n - 1; u >= regionStart; u--) {
    if (!index.units[u]!.critical) tokens += unitAtFloor(input, u);
    if (tokens > budget) break;
    toBudget = u;
    if (tokens <= low) toTarget = u;
  }
  return toTarget ?? toBudget;
}

/** Step 4: results at 0, the prompt cut to what is left of B. */
function capPrompt(input: LadderInput, prompt: number): WindowPlan | undefined {
  const { index, ledger, budget } = input;
  const n = index.units.length;
  const candidates = collectCandidates(input, n, prompt);
  const atZero = exactPlan(input, n, prompt, candidates, untruncatedTokens(input, n, prompt), 0, "cap-prompt");
  // The user message: the last member of its turn unit (notes stored before it come first).
  const unit = index.units[prompt]!;
  const member = unit.prompt!;
  const promptTokens = ledger.memberTokens(prompt)[unit.members.length - 1]!;
  const part = promptPart(member.message);
  let room = budget - (atZero.tokens - promptTokens);
  for (let attempt = 0; attempt < 3 && room > 0; attempt++) {
    // The prompt's framing (role, per-message tokens) stays; only its text is cut.
    const framing = promptTokens - ledger.counter.countText(part.text);
    const maxText = room - Math.max(0, framing) - PLAN_SLACK;
    if (maxText <= 0) return undefined;
    const cut = ledger.truncated(member.message, [{ part, maxTokens: maxText }]);
    const tokens = atZero.tokens - promptTokens + cut.tokens;
    if (tokens <= budget) {
      const replacements = new Map(atZero.replacements);
      replacements.set(member.message, cut.message);
      return { ...atZero, replacements, tokens };
    }
    room -= tokens - budget;
  }
  return undefined;
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
