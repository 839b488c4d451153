import { ContextExampleError } from "./errors.js";
import { splitIntoUnits } from "./tool-units.js";

/**
 * The recent-turns window. A turn starts at each user message (one that is not only tool
 * results). What comes before the first user message (a greeting, a preamble) is left out when
 * the history has a user message — providers want the first non-system message to be the
 * user's — and is the only turn when it has none. The window is
 *
 *   system messages (all, first, stored order)
 *   + pinned units: every unit holding a critical message, whole (a critical call keeps its
 *     results, a critical result its call), plus the user message that opens the turn of the
 *     oldest one, so the window still starts with a user message
 *   + the newest turns, whole, newest first, while they fit the budget and number ≤ maxTurns;
 *     when even the newest turn does not fit whole, its user message and the newest units of
 *     it that fit (a contiguous tail)
 *   + request-only messages (options.extraMessages), last.
 *
 * Everything else keeps stored order. Nothing pinned is ever dropped or changed: when system +
 * pinned + request-only messages do not fit, BUDGET_TOO_SMALL with the numbers.
 *
 * @param {{ history: readonly object[], extras: readonly object[], budget: number, maxTurns: number,
 *           counter: { countMessage(m: object): number, replyPriming: number } }} input
 * @returns {{ window: object[], tokens: number, fullTokens: number, compacted: boolean, removed: number,
 *             repaired: { interruptedCalls: string[], orphanResults: string[] } }}
 */
export function assembleRecentTurns({ history, extras, budget, maxTurns, counter }) {
  const count = (messages) => messages.reduce((sum, m) => sum + counter.countMessage(m), 0);
  const systems = history.filter((m) => m.role === "system");
  const { units, repaired } = splitIntoUnits(history.filter((m) => m.role !== "system"));
  const unitTokens = units.map((unit) => count(unit.messages));
  const { turns, preamble } = groupTurns(units);
  const fixedTokens = counter.replyPriming + count(systems) + count(extras);
  const fullTokens = fixedTokens + sum(unitTokens);

  if (preamble.length === 0 && fullTokens <= budget && turns.length <= maxTurns) {
    const window = [...systems, ...units.flatMap((u) => u.messages), ...extras];
    return { window, tokens: fullTokens, fullTokens, compacted: false, removed: countDropped(history, units), repaired };
  }

  const selected = new Set(pinnedWithAnchor(units));
  let tokens = fixedTokens + sum([...selected].map((i) => unitTokens[i]));
  if (tokens > budget) throw budgetTooSmall(history, budget, tokens, counter);

  const take = (i) => {
    if (selected.has(i)) return;
    selected.add(i);
    tokens += unitTokens[i];
  };
  const fits = (i) => selected.has(i) || tokens + unitTokens[i] <= budget;
  let taken = 0;
  for (let t = turns.length - 1; t >= 0 && taken < maxTurns; t--) {
    const turn = turns[t];
    const missing = turn.filter((i) => !selected.has(i));
    if (tokens + sum(missing.map((i) => unitTokens[i])) <= budget) {
      missing.forEach(take);
      taken++;
      continue;
    }
    if (taken === 0) takeTail(turn, units, fits, take);
    break;
  }

  const chosen = units.filter((_, i) => selected.has(i));
  const window = [...systems, ...chosen.flatMap((u) => u.messages), ...extras];
  return { window, tokens, fullTokens, compacted: true, removed: countDropped(history, chosen), repaired };
}

/**
 * Units grouped into turns: a new turn at every unit that opens with a user message. The units
 * before the first one are the `preamble` when a user message follows; else they are the only turn.
 */
function groupTurns(units) {
  const turns = [];
  units.forEach((unit, i) => {
    if (unit.userStart || turns.length === 0) turns.push([i]);
    else turns[turns.length - 1].push(i);
  });
  const hasPreamble = turns.length > 1 && !units[turns[0][0]].userStart;
  return hasPreamble ? { turns: turns.slice(1), preamble: turns[0] } : { turns, preamble: [] };
}

/** Indexes of the pinned units, plus the turn opener of the oldest one when it is not one itself. */
function pinnedWithAnchor(units) {
  const pinned = [];
  units.forEach((unit, i) => unit.pinned && pinned.push(i));
  if (pinned.length > 0 && !units[pinned[0]].userStart) {
    for (let i = pinned[0] - 1; i >= 0; i--) {
      if (units[i].userStart) {
        pinned.unshift(i);
        break;
      }
    }
  }
  return pinned;
}

/** The newest turn does not fit whole: its opening user message, then its newest units while they fit. */
function takeTail(turn, units, fits, take) {
  const [first, ...rest] = turn;
  if (units[first].userStart) {
    if (!fits(first)) return;
    take(first);
  } else {
    rest.unshift(first);
  }
  for (let k = rest.length - 1; k >= 0; k--) {
    if (!fits(rest[k])) break;
    take(rest[k]);
  }
}

function countDropped(history, chosen) {
  const kept = new Set(chosen.flatMap((u) => u.stored));
  return history.filter((m) => m.role !== "system" && !kept.has(m)).length;
}

function budgetTooSmall(history, budget, pinnedTokens, counter) {
  const systemTokens = sum(history.filter((m) => m.role === "system").map((m) => counter.countMessage(m)));
  const criticalTokens = sum(history.filter((m) => m.role !== "system" && m.metadata?.critical === true).map((m) => counter.countMessage(m)));
  const required = Math.max(pinnedTokens, counter.replyPriming + systemTokens + criticalTokens);
  return new ContextExampleError(
    "BUDGET_TOO_SMALL",
    `system and critical messages need ${required} tokens, the budget is ${budget}`,
    { budget, systemTokens, criticalTokens, required, expected: `a budget of at least ${required} tokens` },
  );
}

function sum(numbers) {
  return numbers.reduce((a, b) => a + b, 0);
}
