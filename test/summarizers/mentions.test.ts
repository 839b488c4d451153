import { describe, expect, it } from "vitest";
import type { Message } from "@amplifier-ts/contracts";
import { mentionsOf } from "../../modules/summarizers/index.js";

const of = (text: string): string[] => mentionsOf([{ role: "user", content: text } as Message]);

describe("mentionsOf: the files and ids a summary must carry over", () => {
  it("finds paths (leading ./ and / dropped, trailing sentence dot ignored), file names with a known extension, and ids", () => {
    expect(of("edit src/a.ts and ./x/y.json, then /abs/dir/z.py. Also README.md and config.json; ABC-123 #42 and e.g. foo")).toEqual([
      "src/a.ts",
      "x/y.json",
      "abs/dir/z.py",
      "README.md",
      "config.json",
      "ABC-123",
      "#42",
    ]);
  });

  it("orders by frequency, first seen on ties", () => {
    expect(of("b.ts src/a.ts then src/a.ts again")).toEqual(["src/a.ts", "b.ts"]);
  });

  it("finds nothing in prose without paths, file names or ids", () => {
    expect(of("we agreed to ship on friday, e.g. after the review")).toEqual([]);
  });
});
