/**
 * One string names a store, for the CLI (`--store`, `--to`) and scripts:
 *
 * | string                                          | store config |
 * |-------------------------------------------------|--------------|
 * | `postgres://…`, `postgresql://…` (`?schema=s&table=t`) | `{ type: "postgres", url, schema?, table? }` (the query keys are taken out of the url) |
 * | `redis://…`, `rediss://…` (`?keyPrefix=p`)      | `{ type: "redis", url, keyPrefix? }` |
 * | `redis+cluster://h:p,h:p…`, `rediss+cluster://…` (`?keyPrefix=p`) | `{ type: "redis", url, keyPrefix? }`: a Redis Cluster (the driver reads the nodes from the url) |
 * | `jsonl:<folder>`, `file:<folder>`, or a plain folder path | `{ type: "jsonl", storagePath, fsync: "always" }` |
 * | `memory:`                                       | `{ type: "memory" }` (one process only; for tests) |
 *
 * Anything else with a scheme (`mysql://…`) → UNKNOWN_STORE with the forms above.
 */
import { isAbsolute, resolve } from "node:path";
import { createError } from "@amplifier-ts/contracts";
import type { HistoryStoreConfig } from "./create-store.js";

const KNOWN = "postgres://…, redis://…, redis+cluster://host:port,…, jsonl:<folder>, a folder path, or memory:";

export function parseStoreUrl(text: string, cwd = process.cwd()): HistoryStoreConfig {
  if (typeof text !== "string" || text.trim() === "") {
    throw createError("INVALID_ARGUMENT", "A store must be named", { module: "stores", path: "store", expected: KNOWN, given: text });
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text)?.[1]?.toLowerCase();
  // A Windows drive letter ("C:\\…") is a path, not a scheme.
  if (scheme === undefined || (scheme.length === 1 && /^[a-z]:[\\/]/i.test(text))) return jsonl(text, cwd);
  switch (scheme) {
    case "postgres":
    case "postgresql": {
      const url = new URL(text);
      const schema = takeParam(url, "schema");
      const table = takeParam(url, "table");
      return { type: "postgres", url: url.toString(), ...(schema ? { schema } : {}), ...(table ? { table } : {}) } as unknown as HistoryStoreConfig;
    }
    case "redis":
    case "rediss": {
      const url = new URL(text);
      const keyPrefix = takeParam(url, "keyPrefix");
      return { type: "redis", url: url.toString(), ...(keyPrefix ? { keyPrefix } : {}) } as unknown as HistoryStoreConfig;
    }
    case "redis+cluster":
    case "rediss+cluster": {
      // Several host:port pairs are no WHATWG URL host: the query is taken off by hand.
      const [base, query = ""] = text.split("?", 2) as [string, string?];
      const keyPrefix = new URLSearchParams(query).get("keyPrefix") || undefined;
      return { type: "redis", url: base, ...(keyPrefix ? { keyPrefix } : {}) } as unknown as HistoryStoreConfig;
    }
    case "jsonl":
    case "file": {
      const rest = text.slice(scheme.length + 1).replace(/^\/\/(?=\/)/, "");
      if (rest === "") throw createError("INVALID_ARGUMENT", `${scheme}: needs a folder`, { module: "stores", path: "store", expected: `${scheme}:<folder>`, given: text });
      return jsonl(rest, cwd);
    }
    case "memory":
      return { type: "memory" };
    default:
      throw createError("UNKNOWN_STORE", `No history store for "${scheme}:"`, { module: "stores", path: "store", expected: KNOWN, given: text });
  }
}

function jsonl(folder: string, cwd: string): HistoryStoreConfig {
  return { type: "jsonl", storagePath: isAbsolute(folder) ? folder : resolve(cwd, folder), fsync: "always" };
}

function takeParam(url: URL, name: string): string | undefined {
  const value = url.searchParams.get(name) ?? undefined;
  url.searchParams.delete(name);
  return value === "" ? undefined : value;
}
