/**
 * assembleWindow: one window from an array history, for a context module that chooses each
 * request which stored messages are eligible (its own policy) and lets the engine make that
 * choice fit the budget and the provider's rules.
 *
 * | a module that …                                     | uses                                  |
 * |-----------------------------------------------------|---------------------------------------|
 * | sends from its whole history, growing by append     | one `WindowAssembler`, `append()` per message: O(new messages) a turn, and its hysteresis cut keeps the provider's prompt cache hitting |
 * | picks a different selection of messages each request | `assembleWindow(selection, options)`: O(selection) a request, no state between windows |
 *
 * The selection must keep stored order; whatever it holds gets every window invariant of
 * window-assembler.ts (tool pairs repaired, instructions first, critical messages kept, the
 * budget met or BUDGET_TOO_SMALL). The messages are read by reference and never changed.
 */
import type { Message } from "@amplifier-ts/contracts";
import { WindowAssembler, type AssembleOptions, type AssembledWindow } from "./window-assembler.js";

export function assembleWindow(messages: readonly Message[], options: AssembleOptions): AssembledWindow {
  return new WindowAssembler(messages).assemble(options);
}
