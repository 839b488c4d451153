/**
 * Type tests for `session.context` (checked by `tsc --noEmit`): createSession types the handle by
 * its context module, so the built-in managers' API — search, explainLastWindow, runs, setTools —
 * is usable under `strict` without a cast. Each `@ts-expect-error` is a promise that the compiler
 * rejects that line; if it ever compiles, tsc fails on the unused directive.
 *
 * | call                                                        | session.context         |
 * |-------------------------------------------------------------|-------------------------|
 * | a config naming "context-simple" / "context-persistent"     | HistoryContextManager   |
 * | createSession<Manager>(…)                                   | Manager                 |
 * | a config naming an unregistered module                      | ContextManager          |
 * | a path, nothing, a module name typed `string`               | AnyContext: the contract, the built-ins' API optional |
 */
import { expectTypeOf } from "vitest";
import type { ContextManager } from "../../contracts/context-manager.js";
import type { SearchHit } from "../../contracts/search.js";
import { type AnyContext, type ContextOfModule, type Session } from "../../core/session.js";
import { createSession } from "../../src/session/index.js";
import type { HistoryContextManager, LastWindow, MessageExplanation } from "../../src/index.js";
import type { ContextPersistentConfig, ContextSimpleConfig } from "../../src/index.js";
import type { HistoryContextManager as PersistentHandle } from "../../src/modules/context-persistent.js";
import type { HistoryContextManager as SimpleHandle } from "../../src/modules/context-simple.js";

export async function typedByModuleName(): Promise<void> {
  const simple = await createSession({ session: { context: { module: "context-simple", config: {} } } });
  expectTypeOf(simple.context).toEqualTypeOf<HistoryContextManager>();
  const persistent = await createSession({ session: { context: { module: "context-persistent", config: { storagePath: ".amplifier/sessions" } } } });
  expectTypeOf(persistent.context).toEqualTypeOf<HistoryContextManager>();

  // The handle's own API, no cast.
  expectTypeOf(await persistent.context.search("why do the tests fail", { k: 3 })).toEqualTypeOf<SearchHit[]>();
  expectTypeOf(persistent.context.explainLastWindow()).toEqualTypeOf<LastWindow | undefined>();
  expectTypeOf(persistent.context.explainLastWindow()?.explanation).toEqualTypeOf<MessageExplanation[] | undefined>();
  expectTypeOf(persistent.context.startRun()).toEqualTypeOf<string>();
  expectTypeOf(persistent.context.endRun("run-1")).toEqualTypeOf<Promise<void>>();
  persistent.context.setTools([{ type: "function", function: { name: "ls", parameters: { type: "object" } } }]);
  // @ts-expect-error setTools takes tool definitions
  persistent.context.setTools("ls");

  // Still a Session (of ContextManager) where one is expected.
  const session: Session = persistent;
  expectTypeOf(session.context).toEqualTypeOf<ContextManager>();
}

export async function typedByTheCaller(): Promise<void> {
  const fromFile = await createSession<HistoryContextManager>("amplifier.config.json");
  expectTypeOf(fromFile.context).toEqualTypeOf<HistoryContextManager>();
  // @ts-expect-error the type argument must be a ContextManager
  await createSession<{ search(): void }>("amplifier.config.json");
}

export async function decidedAtRunTime(): Promise<void> {
  // Issue 25 item 15: createSession() (the README's call) had no explainLastWindow in its type. The
  // file may name any module, so the built-ins' API is there, optional: asked for with ?.
  for (const session of [await createSession(), await createSession("amplifier.config.json")]) {
    expectTypeOf(session.context).toEqualTypeOf<AnyContext>();
    expectTypeOf(session.context).toMatchTypeOf<ContextManager>();
    expectTypeOf(session.context.explainLastWindow?.()).toEqualTypeOf<LastWindow | undefined>();
    expectTypeOf(session.context.explainLastWindow?.()?.explanation).toEqualTypeOf<MessageExplanation[] | undefined>();
    expectTypeOf(await session.context.search?.("x")).toEqualTypeOf<SearchHit[] | undefined>();
    // @ts-expect-error the mounted module may lack search: call it with ?. (or name the module)
    await session.context.search("x");
    const asSession: Session = session;
    void asSession;
  }

  const moduleName: string = "context-simple";
  const dynamic = await createSession({ session: { context: { module: moduleName, config: {} } } });
  expectTypeOf(dynamic.context).toEqualTypeOf<AnyContext>();
}

export async function unregisteredStaysTheContract(): Promise<void> {
  const thirdParty = await createSession({ session: { context: { module: "amplifier-module-context-example", config: {} } } });
  expectTypeOf(thirdParty.context).toEqualTypeOf<ContextManager>();
  // @ts-expect-error the contract has no explainLastWindow; this module registered no type
  thirdParty.context.explainLastWindow;

  expectTypeOf<ContextOfModule<"context-simple">>().toEqualTypeOf<HistoryContextManager>();
  expectTypeOf<ContextOfModule<"no-such-module">>().toEqualTypeOf<ContextManager>();
  expectTypeOf<ContextOfModule<string>>().toEqualTypeOf<AnyContext>();
}

// The old entries amplifier-ts/modules/context-* name the same handle; the configs (contracts) check a
// config written beside the call.
expectTypeOf<SimpleHandle>().toEqualTypeOf<HistoryContextManager>();
expectTypeOf<PersistentHandle>().toEqualTypeOf<HistoryContextManager>();
export async function configsBesideTheCall(): Promise<void> {
  const config = { storagePath: ".amplifier/sessions", fsync: "batch" } satisfies ContextPersistentConfig;
  const persistent = await createSession({ session: { context: { module: "context-persistent", config } } });
  expectTypeOf(persistent.context).toEqualTypeOf<HistoryContextManager>();
  const simple = { maxTokens: 8_000 } satisfies ContextSimpleConfig;
  expectTypeOf(simple.maxTokens).toEqualTypeOf<number>();
  // @ts-expect-error fsync is "always" | "batch" | "never"
  const bad = { fsync: "sometimes" } satisfies ContextPersistentConfig;
  void bad;
}
