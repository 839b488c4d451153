import { DEFAULT_MAX_BLOB_BYTES } from "@amplifier-ts/contracts";
import { z } from "zod";

/** `maxBlobBytes`, the one option every blob store type shares (memory, file, postgres). */
export const maxBlobBytesOption = z
  .number()
  .int()
  .min(1)
  .max(2 ** 31 - 1)
  .optional()
  .meta({ description: `Largest blob accepted, in bytes; a larger upload is STORE/BLOB_TOO_LARGE and writes nothing. Default ${DEFAULT_MAX_BLOB_BYTES} (64 MiB).` });
