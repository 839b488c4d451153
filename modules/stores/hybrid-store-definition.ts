import type { HistoryStore } from "@amplifier-ts/contracts";
import { createError } from "@amplifier-ts/contracts";
import { z } from "zod";
import { defineHistoryStore } from "./history-store-definition.js";
import { HybridStore } from "./hybrid-store.js";

const side = z.looseObject({ type: z.string() });

/** `{ "type": "hybrid", hot, cold, recentN? }`: a hot store of recent turns over a cold one, the record. */
export const hybridHistoryStore = defineHistoryStore({
  type: "hybrid",
  description: "recent turns in a hot store (Redis) over the record in a cold one (PostgreSQL)",
  options: z.looseObject({
    hot: side.meta({ description: "The store of recent messages (a history store config)." }),
    cold: side.meta({ description: "The record: complete, durable (a history store config)." }),
    recentN: z.number().optional().meta({ description: "Messages of a session kept hot. Default 200." }),
    probeIntervalMs: z.number().optional().meta({ description: "While the hot store is down, try it again at most this often. Default 1000 ms." }),
  }),
  children: (config) => [config.hot, config.cold],
  create: ({ hot, cold, recentN, probeIntervalMs }, deps) => {
    for (const [name, config] of [["hot", hot], ["cold", cold]] as const) {
      if (config.type === "hybrid") {
        throw createError("INVALID_ARGUMENT", `a hybrid store's ${name} store cannot be hybrid`, { module: "stores", path: `${deps.path}.${name}.type`, expected: "a store type other than hybrid", given: "hybrid" });
      }
    }
    const keep = recentN ?? 200;
    // A Redis hot side holds only what the hybrid keeps hot, unless its own cap says otherwise.
    const hotConfig = hot.type === "redis" && hot.maxMessages === undefined ? { ...hot, maxMessages: keep } : hot;
    const hotStore = deps.createStore(hotConfig, `${deps.path}.hot`);
    let coldStore: HistoryStore;
    try {
      coldStore = deps.createStore(cold, `${deps.path}.cold`);
    } catch (error) {
      void hotStore.close();
      throw error;
    }
    return new HybridStore({ hot: hotStore, cold: coldStore, recentN: keep, ...(probeIntervalMs === undefined ? {} : { probeIntervalMs }), ...(deps.onEvent ? { onEvent: deps.onEvent } : {}) });
  },
});
