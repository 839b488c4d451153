import { defineErrorCodes } from "@amplifier-ts/contracts";

/** The module's error codes (contracts/ERRORS.md, section "OpenTelemetry"). */
export const otelErrors = defineErrorCodes("OTEL", {
  API_MISSING: "The OpenTelemetry API (@opentelemetry/api), an optional peer of this module, is not installed",
  INVALID_TRACER: "The tracer given is not an OpenTelemetry Tracer",
});
