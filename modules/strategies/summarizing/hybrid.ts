/**
 * `hybrid` {recentN, maxTotal}: the last recentN messages
 * from a HOT store (fast, recent: Redis later) plus a backfill from a COLD store (complete:
 * Postgres later) up to maxTotal, merged. In this issue both are HistoryStores given through the
 * strategy's deps (`deps.hybrid = { hot, cold, sessionId }`, in-memory MemoryStores in tests);
 * without them the input history serves as both (then hybrid = the last maxTotal messages).
 *
 * | rule | meaning |
 * |---|---|
 * | recentN ≤ maxTotal | checked when the strategy is created: INVALID_STRATEGY_OPTIONS otherwise |
 * | hot | the last recentN messages of the hot store, always in the window; older hot messages (up to maxTotal are read) backfill what the cold store has not got yet |
 * | backfill | cold messages just BEFORE the oldest hot one, newest first, until maxTotal messages — a gap (m1..m30 + m45..m50) would read as two conversations; a contiguous window reads as one conversation and keeps tool pairs together |
 * | de-duplication | by `metadata.id`, never by content: two identical "ok" messages are two messages; a message without an id is never a duplicate |
 * | order | stored order: the cold store's order, hot-only messages (not yet written behind) after it, in hot order |
 * | counting | instructions (system, developer — hook turn notes are conversation and count) and critical messages do not count toward maxTotal; they are always kept (from the input and from both stores) |
 * | units | a tool call and all its results are kept or dropped together (history-units.ts); the window may exceed maxTotal by the turn prompt of a window that starts inside a turn |
 * | unstored input | input messages in neither store (ephemeral steps, injections) are kept, after the stored ones, in input order |
 *
 * Reads are bounded: the cold store is read from `count − (maxTotal + recentN)` on, not whole.
 */
import { z } from "zod";
import type { CompactionContext, CompactionStrategy } from "@amplifier-ts/contracts";
import type { Message } from "@amplifier-ts/contracts";
import type { HistoryStore } from "@amplifier-ts/contracts";
import { isInstruction } from "@amplifier-ts/window";
import { HistoryUnits, messageId } from "../history-units.js";
import { lowestFitting, suffixSums } from "../stepped-cut.js";
import { defineStrategy, type StrategyDeps } from "@amplifier-ts/contracts";

export const hybridOptions = z
  .object({
    recentN: z.number().int().positive(),
    maxTotal: z.number().int().positive(),
  })
  .strict()
  .refine((o) => o.recentN <= o.maxTotal, { message: "recentN must be ≤ maxTotal", path: ["recentN"] });
export type HybridOptions = z.output<typeof hybridOptions>;

/** The two stores a hybrid reads, and the session it reads from both. */
export interface HybridStores {
  /** Only count and read are used: a hybrid store's hot view (which falls back to cold while degraded) fits. */
  readonly hot: Pick<HistoryStore, "count" | "read">;
  readonly cold: Pick<HistoryStore, "count" | "read">;
  readonly sessionId: string;
}

export interface HybridDeps {
  readonly hybrid?: HybridStores;
}

export class HybridContext implements CompactionStrategy {
  readonly name = "hybrid";

  constructor(
    readonly options: HybridOptions,
    readonly stores?: HybridStores,
  ) {}

  async compact(messages: readonly Message[], context: CompactionContext): Promise<Message[]> {
    const { recentN, maxTotal } = this.options;
    const { hot, cold } = await this.#read(messages);
    const merged = this.stores ? mergeById(cold, hot, messages) : [...messages];
    const units = new HistoryUnits(merged);
    const counted = (u: number) => units.size(u);
    // The hot part: the units holding the last recentN counted hot messages are always kept.
    const recentHot = hot.filter(isCounted).slice(-recentN);
    const hotObjects = new Set(recentHot);
    const hotIds = new Set(recentHot.map((m) => m.metadata?.id).filter((id): id is string => typeof id === "string"));
    const isHot = (m: Message) => hotObjects.has(m) || (typeof m.metadata?.id === "string" && hotIds.has(m.metadata.id));
    let hotStart = units.length;
    for (let u = units.length - 1; u >= 0; u--) if (units.positions(u).some((p) => isHot(merged[p]!))) hotStart = u;
    const sums = suffixSums(units, counted);
    const cut = Math.min(hotStart, lowestFitting(units.length, (from) => sums[from]! <= maxTotal));
    const { explain } = context;
    const reason = explain.enabled ? `beyond the ${recentN} recent + backfill up to ${maxTotal} messages` : "";
    return cut === 0 ? [...merged] : units.keepFrom(cut, explain.enabled ? (m, i) => explain.record(messageId(m, i), "dropped", this.name, reason) : undefined);
  }

  async #read(input: readonly Message[]): Promise<{ hot: Message[]; cold: Message[] }> {
    if (!this.stores) return { hot: [...input], cold: [...input] };
    const { hot, cold, sessionId } = this.stores;
    const { recentN, maxTotal } = this.options;
    const [hotCount, coldCount] = await Promise.all([hot.count(sessionId), cold.count(sessionId)]);
    const [hotTail, coldTail, coldHead] = await Promise.all([
      // Up to maxTotal from hot: the last recentN are kept, the rest backfills what cold has not got yet.
      hot.read(sessionId, { offset: Math.max(0, hotCount - maxTotal) }),
      cold.read(sessionId, { offset: Math.max(0, coldCount - (maxTotal + recentN)) }),
      // Instructions usually open a session: read the head so they are kept even when the tail misses them.
      cold.read(sessionId, { limit: Math.min(8, Math.max(0, coldCount - (maxTotal + recentN))) }),
    ]);
    return { hot: hotTail, cold: [...coldHead.filter((m) => !isCounted(m)), ...coldTail] };
  }
}

export const hybridStrategy = defineStrategy({
  name: "hybrid",
  description: "the last recentN messages from a hot store + a backfill from a cold store up to maxTotal, de-duplicated by id, stored order",
  optionsSchema: hybridOptions as unknown as z.ZodType<HybridOptions>,
  create: (options, deps: StrategyDeps & HybridDeps) => new HybridContext(options, deps.hybrid),
});

/** Conversation counts toward maxTotal (hook turn notes included); instructions do not. */
function isCounted(message: Message): boolean {
  return !isInstruction(message);
}

/**
 * Stored order from the stores: cold first, then hot messages cold does not hold (written behind),
 * each de-duplicated by metadata.id only (id-less messages are all kept). Input messages the
 * stores did not return join when they must be kept anyway: instructions and critical messages
 * (older than the tails read) in front, ephemeral ones (never stored) at the end.
 */
function mergeById(cold: readonly Message[], hot: readonly Message[], input: readonly Message[]): Message[] {
  const seen = new Set<string>();
  const stored: Message[] = [];
  const add = (list: Message[]) => (m: Message) => {
    const id = m.metadata?.id;
    if (typeof id === "string") {
      if (seen.has(id)) return;
      seen.add(id);
    }
    list.push(m);
  };
  cold.forEach(add(stored));
  hot.forEach(add(stored));
  const front: Message[] = [];
  const back: Message[] = [];
  for (const m of input) {
    if (m.metadata?.ephemeral === true) add(back)(m);
    else if ((!isCounted(m) || m.metadata?.critical === true) && !(typeof m.metadata?.id === "string" && seen.has(m.metadata.id))) add(front)(m);
  }
  return [...front, ...stored, ...back];
}
