import type { Tracer } from "@opentelemetry/api";
import { otelErrors } from "./errors.js";

/** The instrumentation scope's name: the global tracer this package asks for by default. */
export const TRACER_NAME = "@amplifier-ts/module-otel";
export const OTEL_MODULE_VERSION = "0.1.0";

/** The tracer as given, or OTEL/INVALID_TRACER naming what it lacks. */
export function checkTracer(tracer: unknown, path: string): Tracer {
  if (typeof tracer === "object" && tracer !== null && typeof (tracer as Tracer).startSpan === "function") return tracer as Tracer;
  throw otelErrors.create("INVALID_TRACER", `${path} is not a tracer`, {
    module: "otel",
    path,
    expected: "an OpenTelemetry Tracer (provider.getTracer(name), or trace.getTracer(name) from @opentelemetry/api)",
    given: tracer,
  });
}
