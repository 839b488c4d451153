/**
 * Opens the context modules under test the way the loader does: a Coordinator, then the module's
 * own mount(coordinator, config). No loader, no TypeScript compilation at run time: the modules
 * are bundled into the bench.
 */
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { ContextManager } from "../../contracts/context-manager.js";
import { Coordinator } from "../../core/coordinator.js";
import { mount as mountPersistent } from "../../modules/context-persistent/index.js";
import { mount as mountSimple } from "../../modules/context-simple/index.js";

export type ContextKind = "context-simple" | "context-persistent (fsync never)" | "context-persistent (fsync always)";

export const CONTEXT_KINDS: readonly ContextKind[] = [
  "context-simple",
  "context-persistent (fsync never)",
  "context-persistent (fsync always)",
];

export interface OpenedContext {
  kind: ContextKind;
  context: ContextManager;
  coordinator: Coordinator;
  /** Session folder of a persistent context (removed by close when `removeOnClose`). */
  storagePath?: string;
  sessionId: string;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** For persistent kinds: where the session files live. A fresh folder under tmpRoot when absent. */
  storagePath?: string;
  tmpRoot: string;
  sessionId?: string;
  /** Remove storagePath on close (default true for a folder this function created). */
  removeOnClose?: boolean;
}

let sessionSeq = 0;

export async function openContext(kind: ContextKind, options: OpenOptions): Promise<OpenedContext> {
  const sessionId = options.sessionId ?? `bench-${process.pid}-${++sessionSeq}`;
  const coordinator = new Coordinator({ sessionId });
  if (kind === "context-simple") {
    const mounted = await mountSimple(coordinator, {});
    const context = (mounted ?? coordinator.get("context")) as ContextManager;
    return { kind, context, coordinator, sessionId, close: () => closeAll(coordinator, context) };
  }
  const created = options.storagePath === undefined;
  const storagePath = options.storagePath ?? join(options.tmpRoot, `sessions-${sessionId}`);
  await mkdir(storagePath, { recursive: true });
  const fsync = kind === "context-persistent (fsync always)" ? "always" : "never";
  const mounted = await mountPersistent(coordinator, { storagePath, sessionId, fsync, strict: true });
  const context = (mounted ?? coordinator.get("context")) as ContextManager;
  const remove = options.removeOnClose ?? created;
  return {
    kind,
    context,
    coordinator,
    storagePath,
    sessionId,
    async close() {
      await closeAll(coordinator, context);
      if (remove) await rm(storagePath, { recursive: true, force: true });
    },
  };
}

async function closeAll(coordinator: Coordinator, context: ContextManager): Promise<void> {
  await coordinator.cleanup();
  const closable = context as ContextManager & { close?: () => Promise<void> };
  // Idempotent in the built-ins; a second close after the coordinator's cleanup must not throw.
  await closable.close?.().catch(() => undefined);
}
