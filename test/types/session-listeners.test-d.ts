/**
 * Type tests for createSession's `on` option and `session.degraded` (issue 25, item 10), checked
 * by `tsc --noEmit`: each observer's payload is the event map's, every event name of the map is
 * accepted, and a name outside it is not.
 */
import { expectTypeOf } from "vitest";
import type { AmplifierEvents } from "../../contracts/events.js";
import { type SessionListeners } from "../../core/session.js";
import { createSession } from "../../src/session/index.js";
import type { SessionDegradation } from "../../core/storage-health.js";

const config = { session: { context: { module: "context-persistent", config: {} } } };

void createSession(config, {
  on: {
    "context:storage_fallback": (event) => expectTypeOf(event).toEqualTypeOf<AmplifierEvents["context:storage_fallback"]>(),
    "context:storage_recovered": (event) => expectTypeOf(event.skippedLines).toEqualTypeOf<number>(),
    "module:mounted": (event) => expectTypeOf(event).toEqualTypeOf<AmplifierEvents["module:mounted"]>(),
  },
});

// @ts-expect-error not an event of the map
void createSession(config, { on: { "context:storage_fell_back": () => undefined } });
// @ts-expect-error the payload of storage_fallback has no skippedLines
void createSession(config, { on: { "context:storage_fallback": (event) => event.skippedLines } });

// Every event name of the map may be listened to.
expectTypeOf<keyof SessionListeners>().toEqualTypeOf<keyof AmplifierEvents>();

declare const session: Awaited<ReturnType<typeof createSession>>;
expectTypeOf(session.degraded).toEqualTypeOf<SessionDegradation | undefined>();
expectTypeOf<NonNullable<SessionDegradation["fallback"]>>().toEqualTypeOf<AmplifierEvents["context:storage_fallback"]>();
