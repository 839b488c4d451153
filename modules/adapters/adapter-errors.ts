import { defineErrorCodes, type AmplifierError } from "@amplifier-ts/contracts";

/**
 * The adapters' own error codes (contracts/ERRORS.md). Every one carries `details.index` (the
 * position of the offending message or item in the adapter's input), `details.rule` (the rule of
 * contracts/ADAPTERS.md it breaks, in words), `details.adapter` and a `path` into the input.
 * An adapter throws before it returns anything: there is no half-converted request.
 */
export const adapterErrors = defineErrorCodes("ADAPTER", {
  INVALID_INPUT: "The adapter's input is not what it converts",
  ORPHAN_RESULT: "A tool result has no unanswered call of its id directly before it",
  MISSING_RESULT: "A tool call is not followed by all of its results",
  UNKNOWN_BLOCK: "A content block or item of a type the adapter does not know",
  UNSUPPORTED_CONTENT: "The target API cannot carry this content where it stands",
});

export type AdapterName = "openai-chat" | "openai-responses" | "anthropic" | "ai-sdk" | "langchain";
export type AdapterErrorCode = keyof typeof adapterErrors.codes;

export interface AdapterErrorDetails {
  adapter: AdapterName;
  /** Direction: `to` a request, or `from` an API shape to stored messages. */
  direction: "to" | "from";
  index: number;
  rule: string;
  path: string;
  expected?: string;
  given?: unknown;
}

export function adapterError(code: AdapterErrorCode, details: AdapterErrorDetails): AmplifierError {
  const where = `${details.adapter} (${details.direction}): ${details.path}`;
  return adapterErrors.create(code, `${where} — ${details.rule}`, { module: "adapters", ...details });
}
