import type { CoordinatorContract } from "@amplifier-ts/contracts";
// The module whose ContextModules this file augments (an augmentation needs its target in the program).
import type {} from "@amplifier-ts/core";
import type { Message } from "@amplifier-ts/contracts";
import type { HistoryStore } from "@amplifier-ts/contracts";
import type { ModuleMeta } from "@amplifier-ts/contracts";
import { CONFIG_LOCATION_CAPABILITY, isAmplifierError, type ConfigLocationCapability } from "@amplifier-ts/contracts";
import { isAbsolute, resolve } from "node:path";
import { HistoryContextManager, offerSpilledResults, parseModuleConfig, strategyDefinitionsOf, type SpillStore } from "@amplifier-ts/context-manager";
import { FileBlobStore } from "@amplifier-ts/module-store-blobs";
import { persistentOptionsSchema } from "./persistent-options.js";
import type { ContextOptionsInput } from "@amplifier-ts/context-manager";
import { openSessionStore, type StoreConfig } from "./open-session-store.js";
import { historyStoresOf } from "./history-stores-capability.js";
import { CALIBRATION_ATTACHMENT, openCalibration, type CalibrationAttachment } from "./calibration-attachment.js";
import { openTokenCounts, TOKEN_COUNTS_ATTACHMENT, type TokenCountsAttachment } from "./token-counts-attachment.js";
import { sessionAttachment } from "./session-attachment.js";
import { openSpills, SPILLS_ATTACHMENT, type SpillsAttachment } from "./spills-attachment.js";
import { windowRecordsAttachment } from "./window-records-attachment.js";
import { forAgent, HybridStore, jsonlAgentFolder } from "@amplifier-ts/stores";
import { join } from "node:path";
import { VECTORS_ATTACHMENT_PREFIX, vectorsAttachment } from "./vectors-attachment.js";
import { DEFAULT_AGENT_ID } from "@amplifier-ts/contracts";
import { providerLookup } from "@amplifier-ts/summarizers";
import { embedderOf } from "@amplifier-ts/search";

// The manager this module mounts, and what its handle offers beyond the five methods (search,
// explainLastWindow, runs, setTools): typed for `session.context` without a cast.
export type { HistoryContextManager, LastWindow, MessageExplanation } from "@amplifier-ts/context-manager";

declare module "@amplifier-ts/core" {
  interface ContextModules {
    "context-persistent": HistoryContextManager;
  }
}

export const meta: ModuleMeta = {
  name: "context-persistent",
  version: "0.1.0",
  kind: "context",
  description: "Durable history (one append-only JSONL file per session by default) with memory fallback; same windows as context-simple.",
  configSchema: persistentOptionsSchema,
};

export { persistentOptionsSchema } from "./persistent-options.js";
export { historyStoresOf } from "./history-stores-capability.js";

export interface ContextPersistentConfig extends ContextOptionsInput {
  storagePath?: string;
  sessionId?: string;
  strict?: boolean;
  fsync?: "always" | "batch" | "never";
  store?: StoreConfig;
}

const PERSISTENCE_KEYS = ["storagePath", "sessionId", "strict", "fsync", "store"] as const;

/**
 * Mounts a persistent context manager. The session's history is read once, here; afterwards every
 * addMessage writes through to the store before it resolves.
 *
 * Failure policy: when the storage cannot be used (no permission, read-only, not a directory) the
 * module keeps working in memory and emits `context:storage_fallback`; with `strict: true` the mount
 * fails instead. A second writer on the same session is always an error (SESSION_LOCKED).
 *
 * After mount, a write the store refuses rejects addMessage and changes nothing: STORAGE_WRITE_FAILED
 * (not stored; retry) or STORAGE_WRITE_UNCERTAIN (perhaps stored: the message is held in doubt,
 * outside the history; `addMessage` of the same message again is its retry and is stored once, and
 * any other write first completes it — context-manager/stored-history.ts). No event: the rejection
 * is the report, as for every failed write.
 */
export async function mount(coordinator: CoordinatorContract, config: ContextPersistentConfig = {}): Promise<HistoryContextManager> {
  parseModuleConfig(meta.name, persistentOptionsSchema, config);
  const options: Record<string, unknown> = { ...config };
  for (const key of PERSISTENCE_KEYS) delete options[key];
  const sessionId = config.sessionId ?? coordinator.sessionId;
  const agentId = config.agentId ?? DEFAULT_AGENT_ID;
  const storagePath = storagePathOf(coordinator, config.storagePath ?? ".amplifier/sessions");

  let store: HistoryStore | undefined;
  let initialMessages: Message[];
  try {
    const opened = await openSessionStore({
      sessionId,
      agentId,
      storagePath,
      fsync: config.fsync ?? "always",
      store: config.store,
      onEvent: async (event) => void (await coordinator.hooks.emit(event.name, event.payload)),
      registry: historyStoresOf(coordinator),
    });
    store = opened.store;
    initialMessages = opened.messages;
    if (opened.recovered) {
      const { skippedLines, skippedBytes } = opened.recovered;
      await coordinator.hooks.emit("context:storage_recovered", { sessionId, storagePath, store: store.kind, skippedLines, skippedBytes });
    }
  } catch (error) {
    if (!isAmplifierError(error, "STORAGE_UNAVAILABLE") || config.strict === true) throw error;
    store = undefined;
    initialMessages = [];
    const kind = config.store?.type ?? "jsonl";
    await coordinator.hooks.emit("context:storage_fallback", { reason: error.message, store: kind, ...(kind === "jsonl" ? { storagePath } : {}) });
  }

  // The token calibration and the carried token counts are the session's attachments in its store
  // (SessionAttachments: files beside a JSONL session, a table in PostgreSQL, a hash in Redis); a
  // store without them (and the memory fallback) keeps the calibration in memory and carries nothing.
  // Failure policy: an unusable or unwritable attachment is context:storage_degraded, never a failed session.
  const folder = store?.kind === "jsonl" ? (store as { storagePath?: unknown }).storagePath : undefined;
  const degraded = (reason: string) =>
    coordinator.hooks.emit("context:storage_degraded", { reason, store: store?.kind ?? "memory", ...(typeof folder === "string" ? { storagePath: folder } : {}) }).then(() => undefined);
  const calibrationAttachment = sessionAttachment(store, sessionId, agentId, CALIBRATION_ATTACHMENT, "calibration");
  const calibrationFile: CalibrationAttachment | undefined = calibrationAttachment ? await openCalibration(calibrationAttachment, degraded) : undefined;
  if (calibrationFile?.problem !== undefined) await degraded(calibrationFile.problem);
  // Token counts of the last process's window, so this resume need not tokenize it again (token-counts-attachment.ts).
  const countsAttachment = sessionAttachment(store, sessionId, agentId, TOKEN_COUNTS_ATTACHMENT, "token counts");
  const countsFile: TokenCountsAttachment | undefined = countsAttachment ? await openTokenCounts(countsAttachment) : undefined;
  if (countsFile?.problem !== undefined) await degraded(countsFile.problem);
  // The excerpts of spilled inputs the last process made, so this resume neither excerpts nor tokenizes them again (spills-attachment.ts).
  const spillsAttachment = sessionAttachment(store, sessionId, agentId, SPILLS_ATTACHMENT, "spilled inputs");
  const spillsFile: SpillsAttachment | undefined = spillsAttachment ? await openSpills(spillsAttachment) : undefined;
  if (spillsFile?.problem !== undefined) await degraded(spillsFile.problem);
  // What each request sent (budget, model, tools, decisions), for the Inspector: queued, written off the turn's path.
  const windowsFile = sessionAttachment(store, sessionId, agentId, "windows-0", "window records")
    ? windowRecordsAttachment((name) => sessionAttachment(store, sessionId, agentId, name, "window records")!, degraded)
    : undefined;

  // The embedder's vectors of the messages (with an embedder): kept beside the session, so a resume embeds nothing again.
  const embedder = embedderOf(coordinator);
  const vectorsFile =
    embedder.embedder && sessionAttachment(store, sessionId, agentId, `${VECTORS_ATTACHMENT_PREFIX}0`, "vectors")
      ? vectorsAttachment({ attachment: (index) => sessionAttachment(store, sessionId, agentId, `${VECTORS_ATTACHMENT_PREFIX}${index}`, "vectors")!, degraded })
      : undefined; // written by the context's close (HistorySearchIndex.close), before the store closes

  let context: HistoryContextManager;
  try {
    context = new HistoryContextManager({
      moduleName: meta.name,
      options: options as ContextOptionsInput,
      hooks: coordinator.hooks,
      store,
      sessionId,
      initialMessages,
      ...(calibrationFile ? { calibration: calibrationFile.calibration, onCalibration: (record) => calibrationFile.save(record) } : {}),
      ...(windowsFile ? { onWindow: (record) => windowsFile.add(record) } : {}),
      providers: providerLookup(coordinator),
      ...embedder,
      ...(vectorsFile ? { vectorArchive: vectorsFile } : {}),
      ...strategyDefinitionsOf(coordinator),
      ...(typeof folder === "string" ? { spillStore: spillStoreBeside(folder, agentId, sessionId) } : {}),
      ...(spillsFile && spillsFile.carried.size > 0 ? { carriedSpills: spillsFile.carried } : {}),
      // A hybrid store feeds the `hybrid` strategy: hot = its recent view (cold while degraded), cold = the record,
      // both the agent's (the strategy knows no agents).
      ...(store instanceof HybridStore ? { strategyServices: { hybrid: { hot: store.hotView({ agentId }), cold: forAgent(store.cold, agentId), sessionId } } } : {}),
    });
    await coordinator.mount("context", context);
    offerSpilledResults(coordinator, context);
  } catch (error) {
    await store?.close();
    throw error;
  }
  coordinator.registerCleanup(() => context.close());
  // After close in the list, so it runs first: the queued window records are written while the store is open.
  if (windowsFile) coordinator.registerCleanup(() => windowsFile.flush());
  // Registered after close: cleanups run in reverse order, so the counts are saved while the context is open.
  if (countsFile) {
    coordinator.registerCleanup(async () => {
      // Nothing counted (no window was asked for: validate, a look at the session): no file, and a
      // session folder created just for this look can still be removed when the store closes.
      const counts = context.carriedTokenCounts();
      if (Object.keys(counts.caches).length === 0) return;
      const problem = await countsFile.save(counts);
      if (problem !== undefined) await degraded(problem);
    });
  }
  if (spillsFile) {
    coordinator.registerCleanup(async () => {
      const problem = await spillsFile.save(context.carriedSpills());
      if (problem !== undefined) await degraded(problem);
    });
  }
  const skipped = context.skippedOnResume;
  if (skipped.length > 0) {
    await coordinator.hooks.emit("context:storage_degraded", {
      reason: `${skipped.length} stored message${skipped.length === 1 ? "" : "s"} of session "${sessionId}" cannot be used and ${skipped.length === 1 ? "was" : "were"} left out of the history`,
      store: store?.kind ?? "memory",
      ...(config.store === undefined ? { storagePath } : {}),
      detail: { skipped: skipped.map((s) => ({ index: s.index, id: s.id, error: s.error.message })) },
    });
  }
  return context;
}

/**
 * A JSONL session's spilled inputs: a file blob store in `<agent folder>/<session>.spilled/`,
 * beside the session file, keyed by handle alone (the folder is the agent's session). Made when
 * the first input is spilled; it needs no closing (each blob is written whole, then renamed).
 */
function spillStoreBeside(storagePath: string, agentId: string, sessionId: string): () => SpillStore {
  return () => ({ blobs: new FileBlobStore({ path: join(jsonlAgentFolder(storagePath, agentId), `${sessionId}.spilled`) }), keyPrefix: "" });
}

/**
 * A relative storage folder starts where the config's relative module paths start (the loader's
 * "config" capability: the config file's folder), so running from another folder opens the same
 * session. Mounted by hand, without a loader: the process's cwd.
 */
function storagePathOf(coordinator: CoordinatorContract, storagePath: string): string {
  if (isAbsolute(storagePath)) return storagePath;
  const baseDir = coordinator.getCapability<ConfigLocationCapability>(CONFIG_LOCATION_CAPABILITY)?.baseDir;
  return typeof baseDir === "string" ? resolve(baseDir, storagePath) : storagePath;
}
