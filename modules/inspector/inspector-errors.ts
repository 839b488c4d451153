import { defineErrorCodes } from "@amplifier-ts/contracts";

/** The Inspector's own error codes (contracts/ERRORS.md). */
export const inspectorErrors = defineErrorCodes("INSPECTOR", {
  ASSETS_MISSING: "The Inspector page's bundle (dist/assets) has not been built",
  UNKNOWN_SESSION: "No source of the Inspector holds this session",
  TOO_MANY_STREAMS: "Too many live streams are open (on the server, or from this client)",
  ANALYSIS_FAILED: "A session's analysis failed in its thread (the thread died, or could not start)",
});
