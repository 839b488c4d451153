/**
 * A deterministic, model-free STAND-IN for a real embedding model, for the recall evaluation and
 * tests: hashed bag of (lower-cased, lightly stemmed) words and character trigrams, plus a small
 * synonym table that maps words to a shared concept ("boss" and "manager" → the same dimension).
 * It knows only the synonyms listed here; a real embedder learns them. Vectors are L2-normalised.
 */
import type { Embedder } from "../../contracts/search.js";

const DIMENSIONS = 512;

/** Word → concept: the only "semantics" this embedder has. */
const SYNONYMS: Record<string, string> = {
  boss: "manager", manager: "manager", lead: "manager",
  memory: "ram", ram: "ram",
  db: "database", database: "database", postgres: "database", mysql: "database",
  live: "launch", launch: "launch", ship: "launch",
  date: "when", day: "when", when: "when",
  indentation: "indent", tabs: "indent", spaces: "indent", indent: "indent",
  broker: "queue", queue: "queue",
  pick: "decide", picked: "decide", decided: "decide", decision: "decide", settled: "decide", voted: "decide",
  color: "colour", colour: "colour",
  reviewer: "review", review: "review", look: "review",
  retry: "retry", retries: "retry", attempts: "retry", times: "retry",
};

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function stem(word: string): string {
  return word.replace(/(ing|ed|es|s)$/, "");
}

export function embedText(text: string): Float32Array {
  const v = new Float32Array(DIMENSIONS);
  const words = text.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 1);
  for (const word of words) {
    const concept = SYNONYMS[word] ?? SYNONYMS[stem(word)];
    v[fnv1a(`w:${concept ?? stem(word)}`) % DIMENSIONS]! += concept ? 2 : 1;
    const padded = ` ${word} `;
    for (let i = 0; i + 3 <= padded.length; i++) v[fnv1a(`c:${padded.slice(i, i + 3)}`) % DIMENSIONS]! += 0.25;
  }
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < v.length; i++) v[i]! /= norm;
  return v;
}

export const hashedEmbedder: Embedder = {
  name: "hashed-test-embedder",
  dimensions: DIMENSIONS,
  embed: async (texts) => texts.map(embedText),
};
