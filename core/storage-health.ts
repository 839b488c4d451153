import type { AmplifierEvents, HookBusContract, Observer } from "@amplifier-ts/contracts";

/**
 * What a session knows about its storage, from the context module's own events: the graceful
 * fallback to memory is kept (the mission), but it is never silent.
 *
 * | event                       | session.degraded            | warning code (once per session) |
 * |-----------------------------|-----------------------------|---------------------------------|
 * | context:storage_fallback    | `fallback` (for good)       | AMPLIFIER_STORAGE_FALLBACK      |
 * | context:storage_recovered   | `recovered` (for good)      | AMPLIFIER_STORAGE_RECOVERED     |
 * | context:storage_degraded    | appended to `degraded`      | AMPLIFIER_STORAGE_DEGRADED      |
 * | context:storage_restored    | `degraded` cleared          | —                               |
 *
 * The warning goes through `process.emitWarning` only when nobody else listens to the event (a
 * handler or observer: `createSession(…, { on })`, a config hook, `session.hooks.on`, a `*`
 * observer) — whoever listens has taken charge of it. Events of the mount are judged once the
 * mount is over, so the loader's own listener (the module report) is not taken for a reader.
 */
export interface SessionDegradation {
  /** The storage could not be used: the history lives in memory and will not outlive the process. */
  fallback?: AmplifierEvents["context:storage_fallback"];
  /** The session was opened after a crash: torn or corrupt records were skipped. */
  recovered?: AmplifierEvents["context:storage_recovered"];
  /** Lost guarantees since the last `context:storage_restored`, oldest first. */
  degraded?: readonly AmplifierEvents["context:storage_degraded"][];
}

type WarnedEvent = "context:storage_fallback" | "context:storage_recovered" | "context:storage_degraded";

/** The codes of the warnings, by event (contracts/ERRORS.md, "Warnings"). */
export const STORAGE_WARNING_CODES = {
  "context:storage_fallback": "AMPLIFIER_STORAGE_FALLBACK",
  "context:storage_recovered": "AMPLIFIER_STORAGE_RECOVERED",
  "context:storage_degraded": "AMPLIFIER_STORAGE_DEGRADED",
} as const satisfies Record<WarnedEvent, string>;

export interface StorageHealth {
  /** Undefined while the storage keeps every guarantee. */
  readonly degraded: SessionDegradation | undefined;
  /** Warn now for what the mount said (nobody could listen before), and for everything from now on as it comes. */
  mounted(): void;
  stop(): void;
}

/** Starts watching `hooks` (before anything mounts); `contextModule` names the module in warnings. */
export function watchStorageHealth(hooks: HookBusContract<AmplifierEvents>, contextModule: string): StorageHealth {
  let state: SessionDegradation = {};
  let live = false;
  const warned = new Set<WarnedEvent>();
  const pending: Array<() => void> = [];

  // The warning is judged without our own observer, which is not a reader.
  const heardByOthers = <K extends WarnedEvent>(event: K, own: Observer<AmplifierEvents[K]>): boolean => {
    hooks.off(event, own);
    try {
      return hooks.hasListeners?.(event) ?? true;
    } finally {
      hooks.on(event, own);
    }
  };
  const watch = <K extends WarnedEvent>(event: K, record: (payload: AmplifierEvents[K]) => void): (() => void) => {
    const own: Observer<AmplifierEvents[K]> = (payload) => {
      record(payload);
      const judge = () => {
        if (warned.has(event) || heardByOthers(event, own)) return;
        warned.add(event);
        process.emitWarning(warningText(event, payload as AmplifierEvents[WarnedEvent], contextModule), { code: STORAGE_WARNING_CODES[event], detail: JSON.stringify(payload) });
      };
      if (live) judge();
      else pending.push(judge);
    };
    hooks.on(event, own);
    return () => hooks.off(event, own);
  };

  const stops = [
    watch("context:storage_fallback", (fallback) => (state = { ...state, fallback })),
    watch("context:storage_recovered", (recovered) => (state = { ...state, recovered })),
    watch("context:storage_degraded", (degraded) => (state = { ...state, degraded: [...(state.degraded ?? []), degraded] })),
    hooks.on("context:storage_restored", () => {
      const { degraded: _cleared, ...rest } = state;
      state = rest;
    }),
  ];
  return {
    get degraded() {
      return Object.keys(state).length === 0 ? undefined : state;
    },
    mounted() {
      live = true;
      for (const judge of pending.splice(0)) judge();
    },
    stop() {
      for (const stop of stops) stop();
    },
  };
}

/** What happened, where, and what the reader can do about it. */
function warningText(event: WarnedEvent, payload: AmplifierEvents[WarnedEvent], contextModule: string): string {
  const where = `the ${payload.store ?? "configured"} store${payload.storagePath === undefined ? "" : ` at ${payload.storagePath}`}`;
  const listen = `listen with createSession(config, { on: { "${event}": … } }) to handle it yourself`;
  switch (event) {
    case "context:storage_fallback":
      return `${contextModule} keeps this session's history in memory only, because ${where} cannot be used: ${(payload as { reason: string }).reason}. Set "strict": true in ${contextModule}'s config to fail instead, or ${listen}.`;
    case "context:storage_recovered": {
      const { sessionId, skippedLines, skippedBytes } = payload as AmplifierEvents["context:storage_recovered"];
      return `${contextModule} opened session "${sessionId}" in ${where} after a crash and skipped ${skippedLines} torn or corrupt record${skippedLines === 1 ? "" : "s"} (${skippedBytes} bytes); ${listen}.`;
    }
    case "context:storage_degraded":
      return `${contextModule}: ${where} works but lost a guarantee: ${(payload as { reason: string }).reason}; ${listen}.`;
  }
}
