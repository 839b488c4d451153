import { ContextExampleError } from "./errors.js";
import { splitIntoUnits } from "./tool-units.js";

export const OMITTED_HISTORY = "[earlier conversation omitted]";

/**
 * The recent-turns window. A turn starts at each user turn (a user message with content besides
 * tool results) — or at the hook turn notes stored right before it (system/developer messages
 * with `metadata.scope: "turn"`: a prompt:submit hook stores them before the prompt). Notes are
 * conversation, not instructions: kept and dropped with their turn. What comes before the first
 * user turn (a greeting) is not sent when the history has a user turn — providers want the
 * conversation to start with the user — and is the only turn when it has none. The window is, in
 * this order:
 *
 * | position | messages                                                                           |
 * |----------|------------------------------------------------------------------------------------|
 * | 1        | instructions: every system and developer message but turn notes, verbatim, stored order |
 * | 2        | `[earlier conversation omitted]` (user, `metadata.window.synthetic: "omitted-history"`), |
 * |          | only when the first kept unit is not a user turn (a critical unit older than the kept turns) |
 * | 3        | kept units in stored order: every unit holding a critical message (whole: a critical call |
 * |          | keeps its results, a critical result its call), and the newest turns, whole, newest first, |
 * |          | while they fit and number ≤ maxTurns; when even the newest turn does not fit whole, its   |
 * |          | user message and its newest units that fit                                           |
 * | 4        | request-only messages (`options.extraMessages`), as given                              |
 *
 * Nothing kept is ever changed or truncated (this module has no truncation): when instructions +
 * critical units + placeholder + request-only messages do not fit, BUDGET_TOO_SMALL with the numbers.
 *
 * @param {{ history: readonly object[], extras: readonly object[], budget: number, maxTurns: number,
 *           counter: { countMessage(m: object): number, replyPriming: number } }} input
 * @returns {{ window: object[], tokens: number, fullTokens: number, compacted: boolean, removed: number,
 *             repaired: { interruptedCalls: string[], orphanResults: string[] } }}
 */
export function assembleRecentTurns({ history, extras, budget, maxTurns, counter }) {
  const count = (messages) => sum(messages.map((m) => counter.countMessage(m)));
  const instructions = history.filter(isInstruction);
  const { units, repaired } = splitIntoUnits(history.filter((m) => !isInstruction(m)));
  const unitTokens = units.map((unit) => count(unit.messages));
  const { turns, preamble } = groupTurns(units);
  const fixedTokens = counter.replyPriming + count(instructions) + count(extras);
  const fullTokens = fixedTokens + sum(unitTokens);
  const assemble = (chosen, placeholder) => [...instructions, ...(placeholder ? [placeholder] : []), ...chosen.flatMap((u) => u.messages), ...extras];

  if (preamble.length === 0 && fullTokens <= budget && turns.length <= maxTurns) {
    return { window: assemble(units), tokens: fullTokens, fullTokens, compacted: false, removed: countDropped(history, units), repaired };
  }

  const selected = new Set(units.flatMap((unit, i) => (unit.pinned ? [i] : [])));
  const hasUserTurn = units.some((unit) => unit.userStart);
  const firstPinned = Math.min(...selected);
  // Reserved whenever it may be needed: the oldest critical unit is not a user turn.
  const placeholder = hasUserTurn && selected.size > 0 && !units[firstPinned].userStart ? omittedHistory() : undefined;
  let tokens = fixedTokens + sum([...selected].map((i) => unitTokens[i])) + (placeholder ? counter.countMessage(placeholder) : 0);
  if (tokens > budget) throw budgetTooSmall(history, budget, tokens, counter);

  const take = (i) => {
    if (selected.has(i)) return;
    selected.add(i);
    tokens += unitTokens[i];
  };
  const fits = (i) => selected.has(i) || tokens + unitTokens[i] <= budget;
  const fitsAll = (list) => tokens + sum(list.filter((i) => !selected.has(i)).map((i) => unitTokens[i])) <= budget;
  let taken = 0;
  for (let t = turns.length - 1; t >= 0 && taken < maxTurns; t--) {
    const turn = turns[t];
    const missing = turn.filter((i) => !selected.has(i));
    if (tokens + sum(missing.map((i) => unitTokens[i])) <= budget) {
      missing.forEach(take);
      taken++;
      continue;
    }
    if (taken === 0) takeTail(turn, units, fits, fitsAll, take);
    break;
  }

  const chosen = units.filter((_, i) => selected.has(i));
  // Leading notes open the turn that follows them: the first other unit decides.
  const opener = chosen.find((u) => !u.note);
  const needsPlaceholder = placeholder !== undefined && chosen.length > 0 && !(opener?.userStart ?? false);
  if (placeholder !== undefined && !needsPlaceholder) tokens -= counter.countMessage(placeholder);
  const window = assemble(chosen, needsPlaceholder ? placeholder : undefined);
  return { window, tokens, fullTokens, compacted: true, removed: countDropped(history, chosen), repaired };
}

/** system and developer messages, except a hook's turn note (`metadata.scope: "turn"`): that one is conversation. */
export function isInstruction(message) {
  return (message.role === "system" || message.role === "developer") && message.metadata?.scope !== "turn";
}

/**
 * Units grouped into turns: a new turn at every user turn. The units before the first one are the
 * `preamble` when a user turn follows; else they are the only turn.
 */
function groupTurns(units) {
  const turns = [];
  units.forEach((unit, i) => {
    if (unit.userStart) {
      // The notes right before a prompt open its turn.
      const previous = turns[turns.length - 1];
      const opening = [];
      while (previous && previous.length > 0 && units[previous[previous.length - 1]].note) opening.unshift(previous.pop());
      if (previous && previous.length === 0) turns.pop();
      turns.push([...opening, i]);
    } else if (turns.length === 0) turns.push([i]);
    else turns[turns.length - 1].push(i);
  });
  const hasPreamble = turns.length > 1 && !turns[0].some((i) => units[i].userStart);
  return hasPreamble ? { turns: turns.slice(1), preamble: turns[0] } : { turns, preamble: [] };
}

/** The newest turn does not fit whole: its user message (with the notes opening it), then its newest units while they fit. */
function takeTail(turn, units, fits, fitsAll, take) {
  const user = turn.findIndex((i) => units[i].userStart);
  const head = turn.slice(0, user + 1);
  const rest = turn.slice(user + 1);
  if (user >= 0) {
    if (!fitsAll(head)) return;
    head.forEach(take);
  }
  for (let k = rest.length - 1; k >= 0; k--) {
    if (!fits(rest[k])) break;
    take(rest[k]);
  }
}

function omittedHistory() {
  return {
    role: "user",
    content: OMITTED_HISTORY,
    metadata: { id: "window:omitted-history", source: "amplifier-module-context-example", window: { synthetic: "omitted-history" } },
  };
}

function countDropped(history, chosen) {
  const kept = new Set(chosen.flatMap((u) => u.stored));
  return history.filter((m) => !isInstruction(m) && !kept.has(m)).length;
}

function budgetTooSmall(history, budget, pinnedTokens, counter) {
  const systemTokens = sum(history.filter(isInstruction).map((m) => counter.countMessage(m)));
  const criticalTokens = sum(history.filter((m) => !isInstruction(m) && m.metadata?.critical === true).map((m) => counter.countMessage(m)));
  const required = Math.max(pinnedTokens, counter.replyPriming + systemTokens + criticalTokens);
  return new ContextExampleError(
    "BUDGET_TOO_SMALL",
    `instructions and critical messages need ${required} tokens, the budget is ${budget}`,
    { budget, systemTokens, criticalTokens, required, expected: `a budget of at least ${required} tokens` },
  );
}

function sum(numbers) {
  return numbers.reduce((a, b) => a + b, 0);
}

