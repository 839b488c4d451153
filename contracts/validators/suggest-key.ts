/**
 * "Did you mean" for unknown keys. Config keys are camelCase, while many users arrive from Python
 * or YAML configs written in snake_case, so the first test ignores case, `_` and `-`
 * (`max_tokens` → `maxTokens`); only then does edit distance look for typos (`maxToken`, `modle`).
 */

/** The closest candidate, or undefined when nothing is close enough to be a plausible typo. */
export function suggestKey(given: string, candidates: Iterable<string>): string | undefined {
  const list = [...candidates];
  const normalizedGiven = normalize(given);
  const sameWord = list.find((candidate) => normalize(candidate) === normalizedGiven);
  if (sameWord !== undefined) return sameWord;

  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of list) {
    const distance = editDistance(normalizedGiven, normalize(candidate));
    // A third of the length: catches a slip or two, never maps `foo` onto `bar`.
    const limit = Math.max(1, Math.floor(Math.max(given.length, candidate.length) / 3));
    if (distance <= limit && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * The hint text used in error details, or undefined when there is no suggestion. `aliases` (other
 * name → candidate) are matched like candidates and suggest the candidate they stand for:
 * `max_tokens` → `maxOutputTokens` where the key's schema lists the API's name as an alias.
 */
export function didYouMean(given: string, candidates: Iterable<string>, aliases: ReadonlyMap<string, string> = new Map()): string | undefined {
  const suggestion = suggestKey(given, [...candidates, ...aliases.keys()]);
  const meant = suggestion === undefined ? undefined : (aliases.get(suggestion) ?? suggestion);
  return meant === undefined ? undefined : `did you mean "${meant}"?`;
}

/**
 * Levenshtein distance with adjacent transpositions counted as one edit (optimal string
 * alignment): `modle` is one slip away from `model`, as a typist sees it, not two.
 */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  // rows[i][j] = distance between a[0..i) and b[0..j)
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; j++) (rows[0] as number[])[j] = j;
  const at = (i: number, j: number): number => rows[i]?.[j] ?? Infinity;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      row[j] = best;
    }
  }
  return at(a.length, b.length);
}

function normalize(key: string): string {
  return key.replace(/[-_]/g, "").toLowerCase();
}
