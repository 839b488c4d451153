/**
 * How a mounted context module finds the strategies registered for its session: the coordinator
 * capability "strategies" (STRATEGIES_CAPABILITY, contracts/strategy-definition.ts), a list of
 * definitions registered by the host or a plugin before the context mounts. They go into the
 * manager's own registry (over the built-ins), so another coordinator's managers never see them.
 * A value that is not a list of definitions is a typed error at mount, not a failure at the first
 * window.
 */
import type { AnyStrategyDefinition, CoordinatorContract } from "@amplifier-ts/contracts";
import { createError, STRATEGIES_CAPABILITY } from "@amplifier-ts/contracts";

/** `{ strategyDefinitions }` when the capability is registered, else `{}` (spread into HistoryContextManagerInit). */
export function strategyDefinitionsOf(coordinator: CoordinatorContract): { strategyDefinitions?: AnyStrategyDefinition[] } {
  const registered = coordinator.getCapability<unknown>(STRATEGIES_CAPABILITY);
  if (registered === undefined) return {};
  const definitions = isIterable(registered) ? [...registered] : undefined;
  if (!definitions || !definitions.every(isDefinition)) {
    throw createError("INVALID_ARGUMENT", `capability "${STRATEGIES_CAPABILITY}" is not a list of strategy definitions`, {
      path: STRATEGIES_CAPABILITY,
      expected: "an array of defineStrategy({ name, description, optionsSchema, create })",
      given: registered,
    });
  }
  return { strategyDefinitions: definitions };
}

function isIterable(value: unknown): value is Iterable<unknown> {
  return typeof value === "object" && value !== null && typeof (value as Iterable<unknown>)[Symbol.iterator] === "function";
}

function isDefinition(value: unknown): value is AnyStrategyDefinition {
  const d = value as AnyStrategyDefinition | undefined;
  return typeof d?.name === "string" && typeof d.create === "function" && typeof d.optionsSchema?.safeParse === "function";
}
