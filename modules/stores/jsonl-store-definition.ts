import type { RecoveryReport } from "@amplifier-ts/contracts";
import { z } from "zod";
import { defineHistoryStore } from "./history-store-definition.js";
import { JsonlStore } from "./jsonl-store.js";

/** `{ "type": "jsonl", storagePath?, fsync? }`: one append-only file per session (the embedded default). */
export const jsonlStoreOptionsSchema = z.looseObject({
  storagePath: z.string().min(1).optional().meta({ description: "Folder of the session files. Default .amplifier/sessions." }),
  fsync: z.enum(["always", "batch", "never"]).optional().meta({ description: "When an acknowledged append is on disk (default always)." }),
  onRecover: z.custom<(report: RecoveryReport) => void>((value) => typeof value === "function", "a function").optional(),
  readOnly: z.boolean().optional().meta({ description: "A reader beside the writer: no lock, no writes." }),
});

export const jsonlHistoryStore = defineHistoryStore({
  type: "jsonl",
  description: "one append-only JSONL file per session (the embedded default)",
  options: jsonlStoreOptionsSchema,
  create: ({ storagePath, fsync, onRecover, readOnly }) => new JsonlStore({ storagePath, fsync, onRecover, ...(readOnly === undefined ? {} : { readOnly }) }),
});
