/**
 * How a mounted context module finds its embedder: the coordinator capability "embedder"
 * (contracts/search.ts), registered by the host before the context mounts — config is JSON and
 * cannot carry an embed() function. A value that is not an Embedder is a typed error at mount,
 * not a failure at the first search.
 */
import type { CoordinatorContract } from "@amplifier-ts/contracts";
import { EMBEDDER_CAPABILITY, type Embedder } from "@amplifier-ts/contracts";
import { createError } from "@amplifier-ts/contracts";

/** `{ embedder }` when the capability is registered, else `{}` (spread into HistoryContextManagerInit). */
export function embedderOf(coordinator: CoordinatorContract): { embedder?: Embedder } {
  const embedder = coordinator.getCapability<Embedder>(EMBEDDER_CAPABILITY);
  if (embedder === undefined) return {};
  if (typeof embedder !== "object" || embedder === null || typeof embedder.embed !== "function" || typeof embedder.name !== "string") {
    throw createError("INVALID_ARGUMENT", `capability "${EMBEDDER_CAPABILITY}" is not an Embedder`, {
      path: EMBEDDER_CAPABILITY,
      expected: "{ name: string, dimensions?: number, embed(texts: string[]): Promise<Float32Array[]> }",
      given: embedder,
    });
  }
  return { embedder };
}
