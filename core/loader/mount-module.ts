import type { CoordinatorContract } from "@amplifier-ts/contracts";
import { AmplifierError, createError, EMBEDDER_CAPABILITY, isAmplifierError, type AnyErrorCode } from "@amplifier-ts/contracts";
import type { LoadedModule } from "./load-module.js";
import { createModuleScope } from "./module-scope.js";
import type { PlannedModule } from "./plan-modules.js";

export interface MountModuleOptions {
  /** How long mount() may take before MODULE_MOUNT_TIMEOUT; `Infinity` waits forever. */
  timeoutMs: number;
}

/**
 * Codes a mount throws that users match on as they are (contracts/CONTEXT.md documents them at
 * mount): they are not wrapped in MODULE_MOUNT_FAILED. The error keeps its code and text; the
 * module and config path go to `details.mount` { module, path, code: "MODULE_MOUNT_FAILED" },
 * the original error to `cause`.
 */
const KEPT_CODES: ReadonlySet<AnyErrorCode> = new Set<AnyErrorCode>(["SESSION_LOCKED", "STORAGE_UNAVAILABLE", "INVALID_SESSION_ID", "STORE_DRIVER_MISSING", "UNKNOWN_STORE"]);

/** setTimeout fires at once for delays above 2^31-1 ms; longer waits are clamped to that. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * Run one module's mount(coordinator, config) and take what it returns:
 *
 * | mount() returns | the loader                                                                   |
 * |-----------------|------------------------------------------------------------------------------|
 * | a function      | registers it as the module's cleanup                                         |
 * | an object       | mounts it at the entry's point (under the entry's name) unless the module    |
 * |                 | mounted it itself or the slot is taken; for hooks it is only returned        |
 * | nothing         | nothing                                                                      |
 *
 * A context entry must leave a ContextManager in the context slot; an embedder entry (the
 * top-level "embedder") must leave an Embedder as the capability "embedder" — registered by
 * mount(), or returned by it and registered here. Failures:
 * MODULE_MOUNT_FAILED (mount threw, or what it returned could not be mounted; `cause` is the
 * original error) and MODULE_MOUNT_TIMEOUT (mount did not settle in time). Either way every
 * registration the module made is rolled back first (module-scope.ts) — nothing half-mounted.
 * Returns what mount() returned.
 */
export async function mountModule(
  coordinator: CoordinatorContract,
  entry: PlannedModule,
  loaded: LoadedModule,
  options: MountModuleOptions,
): Promise<unknown> {
  const scope = createModuleScope(coordinator, entry.specifier);
  const where = { module: entry.specifier, path: entry.path };
  const running = Promise.resolve().then(() => loaded.mount(scope.coordinator, entry.config));

  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    if (Number.isFinite(options.timeoutMs)) timer = setTimeout(() => resolve("timeout"), Math.min(options.timeoutMs, MAX_TIMER_MS));
  });
  let result: unknown;
  try {
    const first = await Promise.race([running.then((value) => ({ value })), timedOut]);
    if (first === "timeout") {
      const rollbackErrors = await scope.rollback();
      // The mount may still finish; a cleanup it hands back then is run at once, a late failure is dropped.
      running.then((late) => (typeof late === "function" ? late() : undefined)).catch(() => undefined);
      throw createError("MODULE_MOUNT_TIMEOUT", `mount() did not settle within ${options.timeoutMs} ms`, {
        ...where,
        expected: `mount() to settle within ${options.timeoutMs} ms`,
        hint: "raise mountTimeoutMs (config file or createSession options) if the module needs longer",
        ...withErrors(rollbackErrors),
      });
    }
    result = first.value;
  } catch (error) {
    if (isAmplifierError(error, "MODULE_MOUNT_TIMEOUT")) throw error;
    if (isAmplifierError(error) && KEPT_CODES.has(error.code)) throw await kept(error);
    throw await failed(`mount() threw: ${messageOf(error)}`, error);
  } finally {
    clearTimeout(timer);
  }

  try {
    await adopt(scope.coordinator, entry, result);
  } catch (error) {
    throw await failed(`what mount() returned could not be mounted: ${messageOf(error)}`, error);
  }
  scope.commit();
  return result;

  /** The module's own code, its text; where it failed rides along in details.mount. */
  async function kept(cause: AmplifierError): Promise<AmplifierError> {
    const rollbackErrors = await scope.rollback();
    const text = cause.message.startsWith(`[${cause.code}] `) ? cause.message.slice(cause.code.length + 3) : cause.message;
    return new AmplifierError(cause.code, `${text} (while mounting ${entry.path}: ${entry.specifier})`, {
      mount: { ...where, code: "MODULE_MOUNT_FAILED" },
      cause,
      ...withErrors(rollbackErrors),
    });
  }

  async function failed(message: string, cause: unknown): Promise<AmplifierError> {
    const rollbackErrors = await scope.rollback();
    return createError("MODULE_MOUNT_FAILED", message, {
      ...where,
      cause,
      ...(isAmplifierError(cause) ? { causeCode: cause.code } : {}),
      ...withErrors(rollbackErrors),
    });
  }
}

async function adopt(coordinator: CoordinatorContract, entry: PlannedModule, result: unknown): Promise<void> {
  if (typeof result === "function") {
    coordinator.registerCleanup(result as () => unknown);
  } else if (typeof result === "object" && result !== null) {
    if (entry.point === "context" || entry.point === "orchestrator") {
      if (coordinator.get(entry.point) === undefined) await coordinator.mount(entry.point, result);
    } else if (entry.point === "providers" || entry.point === "tools") {
      const mounted = Object.values(coordinator.get(entry.point) as Record<string, unknown>);
      const name = entry.name as string; // the config schema requires it for providers and tools
      if (!mounted.includes(result) && coordinator.get(entry.point, name) === undefined) await coordinator.mount(entry.point, result, name);
    }
  }
  if (entry.point === "embedder") return adoptEmbedder(coordinator, entry, result);
  if (entry.point === "context" && coordinator.get("context") === undefined) {
    throw createError("INVALID_MODULE", "the context module left the context slot empty", {
      module: entry.specifier,
      path: entry.path,
      expected: 'mount() to mount a ContextManager (coordinator.mount("context", manager)) or to return one',
      given: result,
    });
  }
}

/**
 * The top-level "embedder" entry: the module registers the capability "embedder" itself, or returns
 * the Embedder for the loader to register. Either way it must be an Embedder: the context reads it
 * at mount, and a wrong value is this entry's failure rather than the first search's.
 */
function adoptEmbedder(coordinator: CoordinatorContract, entry: PlannedModule, result: unknown): void {
  const expected = "mount() to register an Embedder as the capability \"embedder\" (coordinator.registerCapability(\"embedder\", embedder)) or to return one: { name: string, dimensions?: number, embed(texts: string[]): Promise<Float32Array[]> }";
  let embedder = coordinator.getCapability(EMBEDDER_CAPABILITY);
  if (embedder === undefined && isEmbedder(result)) {
    coordinator.registerCapability(EMBEDDER_CAPABILITY, result);
    embedder = result;
  }
  if (!isEmbedder(embedder)) {
    throw createError("INVALID_MODULE", embedder === undefined ? "the embedder module registered no embedder" : 'the capability "embedder" is not an Embedder', {
      module: entry.specifier,
      path: entry.path,
      expected,
      given: embedder ?? result,
    });
  }
}

function isEmbedder(value: unknown): value is { name: string; embed: (texts: string[]) => Promise<Float32Array[]> } {
  const candidate = value as { name?: unknown; embed?: unknown } | null | undefined;
  return typeof candidate === "object" && candidate !== null && typeof candidate.name === "string" && typeof candidate.embed === "function";
}

function withErrors(rollbackErrors: unknown[]): { rollbackErrors?: unknown[] } {
  return rollbackErrors.length > 0 ? { rollbackErrors } : {};
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
