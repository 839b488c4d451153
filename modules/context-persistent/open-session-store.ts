import type { Message } from "@amplifier-ts/contracts";
import type { HistoryStore, RecoveryReport } from "@amplifier-ts/contracts";
import { loadHistoryStore, type HistoryStoreConfig, type HistoryStoreDeps, type HistoryStoreRegistry } from "@amplifier-ts/stores";

/** The `store` block of context-persistent's config: which HistoryStore keeps the session. */
export type StoreConfig = HistoryStoreConfig;

export interface OpenSessionStoreOptions {
  sessionId: string;
  /** The agent the session belongs to (HistoryStore contract v2). */
  agentId: string;
  storagePath: string;
  fsync: "always" | "batch" | "never";
  store?: StoreConfig;
  /** Where a store reports degradation and recovery (hybrid). */
  onEvent?: HistoryStoreDeps["onEvent"];
  /** Where the config's type is resolved (default the built-in list). */
  registry?: HistoryStoreRegistry;
}

export interface OpenedSessionStore {
  store: HistoryStore;
  messages: Message[];
  recovered?: RecoveryReport;
}

/**
 * Builds the configured store (JSONL under storagePath by default) and opens the agent's session: its
 * history is read once, here. If opening fails the store is closed again before the error
 * propagates, so a fallback to memory leaves no file handle or lock behind.
 */
export async function openSessionStore(options: OpenSessionStoreOptions): Promise<OpenedSessionStore> {
  const config: HistoryStoreConfig = options.store ?? { type: "jsonl", storagePath: options.storagePath, fsync: options.fsync };
  const store = await loadHistoryStore(
    config.type === "jsonl" ? { storagePath: options.storagePath, fsync: options.fsync, ...config } : config,
    { ...(options.onEvent ? { onEvent: options.onEvent } : {}), ...(options.registry ? { registry: options.registry } : {}) },
  );
  try {
    const opened = await store.open(options.sessionId, { agentId: options.agentId });
    return { store, messages: opened.messages, ...(opened.recovered ? { recovered: opened.recovered } : {}) };
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
}
