import { afterEach, describe } from "vitest";
import type { HistoryStore } from "@amplifier-ts/contracts";
import { describeStoreAgents } from "./history-store-agents.js";
import { describeStoreAttachments } from "./history-store-attachments.js";
import { describeStoreBasics } from "./history-store-basics.js";
import { describeStoreIdempotence } from "./history-store-idempotence.js";
import type { StoreHarness, StoreUnderTest } from "./history-store-helpers.js";

export type { StoreUnderTest };
import { describeStoreLifecycle } from "./history-store-lifecycle.js";
import { describeStoreProcesses, type ProcessWriterOptions } from "./history-store-processes.js";
import { describeStoreRefusals } from "./history-store-refusals.js";
import { describeStoreStress } from "./history-store-stress.js";

export interface HistoryStoreContractOptions {
  /** Concurrent writers in the concurrency test (default 8) and appends each (default 40). */
  writers?: number;
  appendsPerWriter?: number;
  /** Size of the large-message test (default 1 MiB). */
  largeMessageBytes?: number;
  /** Shared stores: also run writers in other processes (history-store-processes.ts). */
  processes?: ProcessWriterOptions;
  /**
   * Session attachments (history-store-attachments.ts): true — the store must keep them; false —
   * not tested; omitted — tested when the store has them (`hasSessionAttachments`).
   */
  attachments?: boolean;
}

/**
 * The conformance suite of the HistoryStore contract (contracts/history-store.ts,
 * contracts/HISTORY-STORES.md), agent scoping (history-store-agents.ts) and the optional session
 * attachments (history-store-attachments.ts) included. Every store
 * runs it — memory, JSONL, PostgreSQL, Redis, hybrid, third parties':
 *
 * ```ts
 * describeHistoryStoreContract("jsonl", async () => {
 *   const dir = await mkdtemp(join(tmpdir(), "store-"));
 *   return {
 *     store: new JsonlStore({ storagePath: dir }),
 *     reopen: async () => new JsonlStore({ storagePath: dir }),
 *     cleanup: () => rm(dir, { recursive: true, force: true }),
 *   };
 * });
 * ```
 */
export function describeHistoryStoreContract(
  name: string,
  factory: () => Promise<StoreUnderTest>,
  options: HistoryStoreContractOptions = {},
): void {
  const sizes = {
    writers: options.writers ?? 8,
    appendsPerWriter: options.appendsPerWriter ?? 40,
    largeBytes: options.largeMessageBytes ?? 1024 * 1024,
  };

  describe(`HistoryStore contract: ${name}`, () => {
    let made: StoreUnderTest[] = [];
    let stores: HistoryStore[] = [];
    const harness: StoreHarness = {
      async makeUnderTest() {
        const under = await factory();
        made.push(under);
        stores.push(under.store);
        return under;
      },
      async make() {
        return (await harness.makeUnderTest()).store;
      },
      track(store) {
        stores.push(store);
      },
    };
    afterEach(async () => {
      await Promise.allSettled(stores.map((s) => s.close()));
      await Promise.allSettled(made.map((m) => m.cleanup?.()));
      made = [];
      stores = [];
    });

    describeStoreBasics(harness);
    describeStoreRefusals(harness);
    describeStoreStress(harness, sizes);
    describeStoreLifecycle(harness);
    describeStoreAgents(harness);
    describeStoreIdempotence(harness);
    describeStoreAttachments(harness, options.attachments);
    if (options.processes) describeStoreProcesses(harness, options.processes);
  });
}
