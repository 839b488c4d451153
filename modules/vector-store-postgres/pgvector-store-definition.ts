import { createError, type Embedder, type VectorStore } from "@amplifier-ts/contracts";
import { defineStore } from "@amplifier-ts/stores";
import { z } from "zod";
import { PgVectorStore } from "./pgvector-store.js";

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,40}$/;

/** `{ "type": "postgres" }` of store-vectors: what its built-in list imports for this type. */
export const postgresVectorStore = defineStore<VectorStore>()({
  type: "postgres",
  description: "PgVectorStore (@amplifier-ts/vector-store-postgres, the pgvector extension).",
  options: z.strictObject({
    url: z.string().regex(/^postgres(ql)?:\/\//).optional().meta({ description: "postgres://user@host:port/database. Default AMPLIFIER_PG_URL, else postgres://127.0.0.1:5432/test." }),
    schema: z.string().regex(IDENTIFIER).optional().meta({ description: "The schema holding the tables (created when missing). Default public." }),
    table: z.string().regex(IDENTIFIER).optional().meta({ description: "Default amplifier_vectors." }),
  }),
  create: ({ url = process.env.AMPLIFIER_PG_URL, schema, table }, deps) => {
    if (url === undefined) {
      throw createError("INVALID_ARGUMENT", "a postgres vector store needs a url", { module: "store-vectors", path: `${deps.path}.url`, expected: "postgres://user@host:port/database (or AMPLIFIER_PG_URL)", given: url });
    }
    const embedder = deps.embedder as Embedder | undefined;
    return new PgVectorStore({ url, ...(schema === undefined ? {} : { schema }), ...(table === undefined ? {} : { table }), ...(embedder === undefined ? {} : { embedder }) });
  },
});
