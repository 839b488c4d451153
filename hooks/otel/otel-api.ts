import type * as OpenTelemetryApi from "@opentelemetry/api";
import { otelErrors } from "./errors.js";

/** The OpenTelemetry API namespace, as `import * as api from "@opentelemetry/api"` gives it. */
export type OtelApi = typeof OpenTelemetryApi;

/**
 * `@opentelemetry/api` is an optional peer: this package loads without it, and says so where it
 * is needed (`mount`, `otelHooks`) with OTEL/API_MISSING. Loaded once, when this module is first
 * imported (a top-level await: the code API stays synchronous).
 *
 * | found                          | `loadedApi`                  |
 * |--------------------------------|------------------------------|
 * | the package resolves           | `{ api }`                    |
 * | not installed (ERR_MODULE_NOT_FOUND) | `{ missing }`, the import's error |
 * | installed but broken           | `{ missing }`, the import's error (kept as the cause) |
 */
const loadedApi: { api: OtelApi } | { missing: unknown } = await import("@opentelemetry/api").then(
  (api: OtelApi) => ({ api }),
  (missing: unknown) => ({ missing }),
);

/** The API, or OTEL/API_MISSING naming what to install. `where` is the caller (`mount`, `otelHooks`). */
export function requireOtelApi(where: string): OtelApi {
  if ("api" in loadedApi) return loadedApi.api;
  throw otelErrors.create("API_MISSING", `${where}: install @opentelemetry/api (and an SDK or exporter that registers a tracer provider)`, {
    module: "otel",
    expected: "the package @opentelemetry/api ^1.3.0 installed beside @amplifier-ts/module-otel",
    given: "no resolvable @opentelemetry/api",
    hint: "npm i @opentelemetry/api @opentelemetry/sdk-trace-base (or @opentelemetry/sdk-node)",
    cause: loadedApi.missing,
  });
}

/** Reports a tracing failure on OpenTelemetry's diagnostic logger (nowhere when the API is absent). */
export function warnNotTraced(message: string, error: unknown): void {
  if ("api" in loadedApi) loadedApi.api.diag.warn(`@amplifier-ts/module-otel: ${message}`, error);
}
