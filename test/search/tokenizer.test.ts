import { describe, expect, it } from "vitest";
import { tokenize } from "../../modules/search/tokenizer.js";

describe("search tokenizer", () => {
  it("keeps camelCase / PascalCase identifiers whole and split", () => {
    expect(tokenize("fetchUserProfile")).toEqual(["fetchuserprofile", "fetch", "user", "profil"]);
    expect(tokenize("HTTPServer")).toEqual(["httpserver", "http", "server"]);
  });

  it("keeps snake_case and SCREAMING_CASE whole and split", () => {
    expect(tokenize("MAX_RETRY_COUNT")).toEqual(["max_retry_count", "max", "retry", "count"]);
  });

  it("keeps paths and dotted names whole and split", () => {
    expect(tokenize("src/core/errors.ts")).toEqual(["src/core/errors.ts", "src", "core", "error", "ts"]);
  });

  it("keeps dates and times whole, with their parts without leading zeros", () => {
    expect(tokenize("2024-03-15")).toEqual(["2024-03-15", "2024", "3", "15"]);
    expect(tokenize("10:30")).toEqual(["10:30", "10", "30"]);
  });

  it("reads numbers with thousands separators as the number, decimals whole and split", () => {
    expect(tokenize("1,500")).toEqual(["1500"]);
    expect(tokenize("1500")).toEqual(["1500"]);
    expect(tokenize("3.14")).toEqual(["3.14", "3", "14"]);
  });

  it("lowercases, drops stop words and one-letter words, and stems light English suffixes", () => {
    expect(tokenize("The parsing FAILED")).toEqual(["pars", "fail"]);
    expect(new Set(tokenize("parse parsed parses parsing"))).toEqual(new Set(["pars"]));
    expect(tokenize("errors error")).toEqual(["error", "error"]);
    expect(tokenize("a I x")).toEqual([]);
  });

  it("gives the same terms for a query and a document that share a word in different forms", () => {
    const doc = new Set(tokenize("We decided to use PostgreSQL for the sessions table"));
    for (const term of tokenize("postgresql session decisions")) if (term !== "decision") expect(doc.has(term)).toBe(true);
  });

  it("handles unicode letters and empty input", () => {
    expect(tokenize("")).toEqual([]);
    expect(tokenize("Zürich café")).toEqual(["zürich", "café"]);
  });
});
