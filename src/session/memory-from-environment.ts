import type { AmplifierConfig, ModuleRef } from "@amplifier-ts/contracts";
import { createError } from "@amplifier-ts/contracts";

/**
 * The memory module of a session: the config file's top-level `"memory"` entry over the
 * environment variables — the file wins, key by key:
 *
 * | variable | default | becomes |
 * |---|---|---|
 * | MEMORY_ENABLED | true | false → module memory-null |
 * | MEMORY_TYPE | local | module memory-<type>: local, null, postgres or redis |
 * | MEMORY_CONTEXT_LIMIT | 6 | config.contextLimit |
 * | MEMORY_MAX_SESSIONS | 1000 | config.maxSessions |
 * | MEMORY_MAX_SESSION_EVENTS | 500 | config.maxEventsPerSession |
 *
 * With neither the file entry nor any of the variables, the session has no memory (undefined):
 * memory is opt-in, so sessions that never asked for it do not change. A file entry takes its
 * module from the file; the variables' limits fill the config keys the file leaves out. A bad
 * value is CONFIG_INVALID naming the variable and what it accepts.
 */
export const MEMORY_ENV_VARIABLES = ["MEMORY_ENABLED", "MEMORY_TYPE", "MEMORY_CONTEXT_LIMIT", "MEMORY_MAX_SESSIONS", "MEMORY_MAX_SESSION_EVENTS"] as const;

export const MEMORY_TYPES = ["local", "null", "postgres", "redis"] as const;

const LIMITS = { MEMORY_CONTEXT_LIMIT: "contextLimit", MEMORY_MAX_SESSIONS: "maxSessions", MEMORY_MAX_SESSION_EVENTS: "maxEventsPerSession" } as const;

export function resolveMemoryRef(fromFile: ModuleRef | undefined, env: NodeJS.ProcessEnv = process.env): ModuleRef | undefined {
  const set = MEMORY_ENV_VARIABLES.filter((name) => env[name] !== undefined && env[name] !== "");
  if (set.length === 0) return fromFile;
  const config: Record<string, unknown> = {};
  for (const [variable, key] of Object.entries(LIMITS)) {
    const raw = env[variable];
    if (raw !== undefined && raw !== "") config[key] = positiveInteger(variable, raw);
  }
  if (fromFile !== undefined) return { ...fromFile, config: { ...config, ...(fromFile.config ?? {}) } };
  return { module: enabled(env.MEMORY_ENABLED) ? `memory-${memoryType(env.MEMORY_TYPE)}` : "memory-null", config };
}

/** The config with its memory entry resolved over the environment: what amplifier-ts's createSession and CLI mount. */
export function withMemoryFromEnvironment(config: AmplifierConfig, env: NodeJS.ProcessEnv = process.env): AmplifierConfig {
  const memory = resolveMemoryRef(config.memory, env);
  return memory === undefined || memory === config.memory ? config : { ...config, memory };
}

function enabled(raw: string | undefined): boolean {
  if (raw === undefined || raw === "") return true;
  const value = raw.trim().toLowerCase();
  if (["true", "1", "yes", "on"].includes(value)) return true;
  if (["false", "0", "no", "off"].includes(value)) return false;
  throw invalid("MEMORY_ENABLED", raw, "true or false (also 1/0, yes/no, on/off)");
}

function memoryType(raw: string | undefined): (typeof MEMORY_TYPES)[number] {
  if (raw === undefined || raw === "") return "local";
  const value = raw.trim().toLowerCase();
  if ((MEMORY_TYPES as readonly string[]).includes(value)) return value as (typeof MEMORY_TYPES)[number];
  throw invalid("MEMORY_TYPE", raw, `one of ${MEMORY_TYPES.join(", ")}`);
}

function positiveInteger(variable: string, raw: string): number {
  const value = raw.trim();
  if (/^[0-9]+$/.test(value) && Number(value) >= 1 && Number.isSafeInteger(Number(value))) return Number(value);
  throw invalid(variable, raw, "a whole number ≥ 1");
}

function invalid(variable: string, given: string, expected: string) {
  return createError("CONFIG_INVALID", `environment variable ${variable} is not valid`, { path: `env.${variable}`, expected, given });
}
