/**
 * "Mount → first window in a fresh process" for a session kept in PostgreSQL (issue 20), part of
 * the stores-postgres scenario: a Node process of its own (nothing cached, tiktoken not loaded)
 * mounts context-persistent with `store: { type: "postgres" }` on the big session, asks for one
 * window at the bench budget (gpt-4o) and closes — which saves the window's token counts as the
 * session's attachment "counts". The first process after the session was written has none to
 * carry (it tokenizes its window); the ones after it find them.
 */
import { createRequire } from "node:module";
import type { ContextManager } from "../../contracts/context-manager.js";
import { Coordinator } from "../../core/coordinator.js";
import { mount as mountPersistent } from "../../modules/context-persistent/index.js";
import { reportToParent, runChild } from "./child.js";

export interface FirstWindowSample {
  /** mount(): the store's lazy open, the counts and calibration attachments read, the manager built. */
  mountMs: number;
  /** The first getMessagesForRequest. */
  firstWindowMs: number;
  totalMs: number;
  /** A second window right after (warm). */
  secondWindowMs: number;
  windowMessages: number;
  /** Whether the process had loaded tiktoken by the end of the first window (no: every count was carried). */
  tiktokenLoaded: boolean;
  /** The close (background fetch finished, counts written), not part of the resume. */
  closeMs: number;
}

/** Runs one fresh process on the session; `--child pg-first-window <url> <schema> <sessionId> <budget>`. */
export function firstWindowInFreshProcess(entry: string, url: string, schema: string, sessionId: string, budget: number): Promise<FirstWindowSample> {
  return runChild<FirstWindowSample>(entry, ["pg-first-window", url, schema, sessionId, String(budget)]);
}

export async function firstWindowChild(args: string[]): Promise<void> {
  const [url, schema, sessionId, budgetText] = args as [string, string, string, string];
  const require = createRequire(import.meta.url);
  const t0 = performance.now();
  const coordinator = new Coordinator({ sessionId });
  const context = (await mountPersistent(coordinator, { sessionId, store: { type: "postgres", url, schema }, strict: true })) as ContextManager;
  const t1 = performance.now();
  const window = await context.getMessagesForRequest(Number(budgetText));
  const t2 = performance.now();
  const tiktokenLoaded = Object.keys(require.cache).some((path) => /[\\/]tiktoken[\\/]/.test(path));
  await context.getMessagesForRequest(Number(budgetText));
  const t3 = performance.now();
  await coordinator.cleanup();
  const sample: FirstWindowSample = { mountMs: t1 - t0, firstWindowMs: t2 - t1, totalMs: t2 - t0, secondWindowMs: t3 - t2, windowMessages: window.length, tiktokenLoaded, closeMs: performance.now() - t3 };
  reportToParent(sample);
}
