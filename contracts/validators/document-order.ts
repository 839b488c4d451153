/**
 * Problems in the order their keys appear in the document (a key the document lacks sorts after
 * its present siblings), so a user reads them top to bottom as in the file. Stable: problems at
 * the same place keep zod's order.
 */
export function inDocumentOrder<T>(items: readonly T[], pathOf: (item: T) => readonly PropertyKey[], root: unknown): T[] {
  const position = (at: readonly PropertyKey[]): number[] => {
    const out: number[] = [];
    let node: unknown = root;
    for (const segment of at) {
      if (typeof node !== "object" || node === null) {
        out.push(Number.MAX_SAFE_INTEGER);
        node = undefined;
        continue;
      }
      if (Array.isArray(node) && typeof segment === "number") out.push(segment);
      else {
        const index = Object.keys(node).indexOf(String(segment));
        out.push(index < 0 ? Number.MAX_SAFE_INTEGER : index);
      }
      node = (node as Record<PropertyKey, unknown>)[segment];
    }
    return out;
  };
  const keyed = items.map((item, order) => ({ item, order, place: position(pathOf(item)) }));
  keyed.sort((a, b) => {
    for (let i = 0; i < Math.min(a.place.length, b.place.length); i++) if (a.place[i] !== b.place[i]) return a.place[i]! - b.place[i]!;
    return a.place.length - b.place.length || a.order - b.order;
  });
  return keyed.map((entry) => entry.item);
}
