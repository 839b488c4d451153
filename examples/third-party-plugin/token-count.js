/**
 * How this module counts tokens.
 *
 * Exact (preferred): when the host offers the `tokens` capability —
 * `coordinator.registerCapability("tokens", { getTokenCounter })`, where getTokenCounter(model)
 * returns `{ countMessage(message), replyPriming }` (amplifier-ts's core/tokens has exactly that
 * export) — windows are sized with the provider's own counting.
 *
 * Bound (fallback, no tokenizer shipped): a proven upper bound of OpenAI's chat counting, so a
 * window that fits the bound fits the model. Every BPE token of tiktoken stands for at least one
 * UTF-8 byte, so tokens(text) ≤ bytes(text); the JSON text of a message (without metadata, which
 * is never sent) holds every counted text once, and its structure — `{"role":…,"content":…}`,
 * `"type":"text"`, `"id":…,"type":"function"` — is longer than the per-message, per-block and
 * per-call overheads (3, 1, 4 tokens). Images are not text: each one is charged 1,600 tokens,
 * more than OpenAI's largest detail-high price (1,445) and Anthropic's largest (1,600).
 * It over-counts prose 3–5 times, so windows are smaller than they could be; it is not valid for
 * models counted with a safety factor or for gpt-4o-mini's image prices. Register the capability.
 */
export const IMAGE_TOKENS_BOUND = 1_600;
export const REPLY_PRIMING_BOUND = 3;

/** @typedef {{ countMessage(message: object): number; replyPriming: number; exact: boolean }} Counter */

/**
 * @param {unknown} capability what coordinator.getCapability("tokens") returned
 * @param {string} model
 * @returns {Counter}
 */
export function counterFor(capability, model) {
  if (capability && typeof capability.getTokenCounter === "function") {
    const counter = capability.getTokenCounter(model);
    return {
      countMessage: (message) => counter.countMessage(message),
      replyPriming: counter.replyPriming,
      exact: true,
    };
  }
  return BYTE_BOUND;
}

const encoder = new TextEncoder();

/** @type {Counter} */
const BYTE_BOUND = Object.freeze({
  countMessage(message) {
    const { metadata: _ignored, ...sent } = message;
    return encoder.encode(JSON.stringify(sent)).length + IMAGE_TOKENS_BOUND * countImages(sent.content);
  },
  replyPriming: REPLY_PRIMING_BOUND,
  exact: false,
});

function countImages(content) {
  if (!Array.isArray(content)) return 0;
  let images = 0;
  for (const block of content) {
    if (block.type === "image" || block.type === "image_url") images++;
    else if (block.type === "tool_result") images += countImages(block.content);
  }
  return images;
}
