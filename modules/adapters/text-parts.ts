import { isAmplifierError, type Message } from "@amplifier-ts/contracts";
import { adapterError } from "./adapter-errors.js";
import type { Where } from "./content-parts.js";

/** The text of an API's text-like part (text, input_text, output_text, refusal); undefined for others. */
export function textOf(part: { type: string }): string | undefined {
  const p = part as { type: string; text?: unknown; refusal?: unknown };
  if ((p.type === "text" || p.type === "input_text" || p.type === "output_text") && typeof p.text === "string") return p.text;
  if (p.type === "refusal" && typeof p.refusal === "string") return p.refusal;
  return undefined;
}

/** A stored message built from an API shape that breaks the Message contract, as INVALID_INPUT. */
export function fromError(error: unknown, where: Where) {
  if (!isAmplifierError(error)) return error;
  return adapterError("INVALID_INPUT", { ...where, rule: `the converted message matches the Message contract: ${error.message}`, expected: error.details.expected, given: error.details.given });
}

/** A system or developer message as one string (Responses instructions, AI SDK system text); any other block is UNSUPPORTED_CONTENT. */
export function plainText(message: Message, where: (path?: string) => Where): string {
  if (typeof message.content === "string") return message.content;
  return (message.content ?? [])
    .map((block, b) => {
      if (block.type !== "text") throw adapterError("UNSUPPORTED_CONTENT", { ...where(`.content[${b}]`), rule: "system and developer messages carry text only", given: block.type });
      return block.text;
    })
    .join("");
}
