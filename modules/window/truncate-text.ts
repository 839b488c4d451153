/**
 * Head-and-tail truncation of one text to a token cap.
 *
 * The result is `head + marker + tail`, where head and tail are the first and last kept
 * characters (half each, head gets the odd one) and the marker says how much was cut:
 * `\n[… 12345 chars truncated …]\n`. It always satisfies `countText(result) ≤ maxTokens`, except
 * when the marker alone is larger than the cap: then the result is the marker alone (the caller
 * decides whether that still fits; the assembler never asks for less than a marker).
 *
 * How the kept length is found: a bracketed search on the number of kept characters. Each probe
 * tokenizes one candidate (≈ the cap's worth of text, never the whole input); the next probe is
 * interpolated from the tokens-per-char seen so far, so 2–4 probes usually suffice, and it
 * falls back to bisection when interpolation stalls. It stops when the kept text uses the cap to
 * within 1 % (or one character).
 */

export interface TruncatedText {
  readonly text: string;
  /** Characters kept from the input (head + tail). */
  readonly keptChars: number;
  /** Tokens of `text` as counted. */
  readonly tokens: number;
}

export const TRUNCATION_MARKER_PATTERN = /\[… \d+ chars truncated …\]/;

export function truncationMarker(cutChars: number): string {
  return `\n[… ${cutChars} chars truncated …]\n`;
}

/**
 * `text` cut to at most `maxTokens` tokens by `countText`, head and tail kept.
 * `knownTokens` (the tokens of the whole text, if known) avoids tokenizing a huge input.
 */
export function truncateText(
  text: string,
  maxTokens: number,
  countText: (text: string) => number,
  knownTokens?: number,
): TruncatedText {
  const total = knownTokens ?? countText(text);
  if (total <= maxTokens) return { text, keptChars: text.length, tokens: total };
  const build = (kept: number) => {
    const head = Math.ceil(kept / 2);
    const tail = kept - head;
    return text.slice(0, head) + truncationMarker(text.length - kept) + (tail > 0 ? text.slice(text.length - tail) : "");
  };
  const markerOnly = build(0);
  const markerTokens = countText(markerOnly);
  if (markerTokens >= maxTokens) return { text: markerOnly, keptChars: 0, tokens: markerTokens };

  // Invariant: `lo` fits (tokens loTokens ≤ maxTokens), `hi` does not (or is the whole text, which does not fit).
  let lo = 0;
  let loTokens = markerTokens;
  let hi = text.length;
  let hiTokens = total + markerTokens;
  const tolerance = Math.max(1, Math.floor(maxTokens / 100));
  for (let probe = 0; probe < 64 && hi - lo > 1 && maxTokens - loTokens > tolerance; probe++) {
    // Interpolate between the bracket's ends; keep strictly inside so the bracket always shrinks.
    const slope = (hiTokens - loTokens) / (hi - lo);
    let kept = slope > 0 ? lo + Math.floor((maxTokens - loTokens) / slope) : (lo + hi) >> 1;
    if (probe % 3 === 2) kept = (lo + hi) >> 1; // guaranteed progress when interpolation crawls
    kept = Math.min(hi - 1, Math.max(lo + 1, kept));
    const tokens = countText(build(kept));
    if (tokens <= maxTokens) {
      lo = kept;
      loTokens = tokens;
    } else {
      hi = kept;
      hiTokens = tokens;
    }
  }
  return { text: build(lo), keptChars: lo, tokens: loTokens };
}
