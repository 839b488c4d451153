/**
 * The recent-turns policy: which stored messages a window may hold. The toolkit's HistoryIndex
 * (@amplifier-ts/window) has already split the history into units a window keeps or drops whole —
 * a user turn with the hook notes stored right before it, a tool call with all of its results,
 * any other message — and lists the turn starts and the critical units. This module picks:
 *
 * | eligible                                                   | why                                |
 * |------------------------------------------------------------|------------------------------------|
 * | every instruction (system/developer, not a hook turn note)  | kept first in every window         |
 * | every unit holding a critical message, however old          | kept verbatim, with its tool pair  |
 * | every unit from the start of the `maxTurns`-th newest turn  | this module's policy               |
 *
 * What comes before the first user turn (a greeting) is not eligible once the history has one:
 * providers want the conversation to start with the user. The selection keeps stored order; the
 * window assembler then makes it fit the budget and the provider's rules (recent-turns-context.js).
 *
 * Cost: proportional to the selection (plus the instructions and critical units), never a scan
 * of the whole history.
 *
 * @param {import("@amplifier-ts/window").HistoryIndex} index
 * @param {number} maxTurns
 * @returns {import("@amplifier-ts/contracts").Message[]}
 */
export function selectRecentTurns(index, maxTurns) {
  const starts = index.turnStarts;
  const from = starts.length === 0 ? 0 : starts[Math.max(0, starts.length - maxTurns)];
  const chosen = [...index.instructions];
  const take = (u) => {
    for (const member of index.units[u].members) chosen.push(member.stored);
  };
  for (const u of index.criticalUnits) if (u < from) take(u);
  for (let u = from; u < index.units.length; u++) take(u);
  return chosen.sort((a, b) => a - b).map((i) => index.stored[i]);
}
