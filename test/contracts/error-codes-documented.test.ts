import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { defineErrorCodes, ERROR_CODES, registeredErrorCodes } from "../../contracts/errors.js";

/**
 * Every registered error code has a row in contracts/ERRORS.md, and every row names a registered
 * code. "Registered" includes what built-in modules register when they load, so each built-in
 * module package is imported first.
 */
const BUILT_IN_MODULES = [
  "../../modules/adapters/index.js",
  "../../modules/context-manager/index.js",
  "../../modules/context-persistent/index.js",
  "../../modules/context-simple/index.js",
  "../../modules/embedder-local/index.js",
  "../../modules/inspector/index.js",
  "../../modules/langchain/index.js",
  "../../modules/memory-tool/index.js",
  "../../modules/openai-agents/index.js",
  "../../modules/provider-anthropic/index.js",
  "../../modules/provider-openai/index.js",
  "../../modules/search/index.js",
  "../../modules/store-postgres/index.js",
  "../../modules/store-redis/index.js",
  "../../modules/stores/index.js",
  "../../modules/strategies/index.js",
  "../../modules/summarizers/index.js",
  "../../modules/vector-store-postgres/index.js",
  "../../modules/window/index.js",
  "../../hooks/otel/index.js",
];
const ERRORS_MD = new URL("../../contracts/ERRORS.md", import.meta.url);

/** The codes a Markdown document lists: the back-quoted first cell of each table row. */
function documentedCodes(markdown: string): Set<string> {
  return new Set([...markdown.matchAll(/^\|\s*`([A-Z][A-Z0-9_]*(?:\/[A-Z][A-Z0-9_]*)?)`\s*\|/gm)].map((m) => m[1]!));
}

/** Registered codes without a row, and rows without a registered code. */
function compare(registered: Iterable<string>, documented: Set<string>) {
  const codes = [...registered];
  return {
    undocumented: codes.filter((code) => !documented.has(code)),
    unregistered: [...documented].filter((code) => !codes.includes(code)),
  };
}

describe("contracts/ERRORS.md documents every error code", () => {
  it("every code registered by amplifier-ts and its built-in modules has a row; every row is a registered code", async () => {
    for (const entry of BUILT_IN_MODULES) await import(entry);
    const registered = [...registeredErrorCodes().keys()].filter((code) => !code.startsWith("TEST_"));
    const result = compare(registered, documentedCodes(readFileSync(ERRORS_MD, "utf8")));
    expect(result.undocumented, "add a row for each of these codes to contracts/ERRORS.md").toEqual([]);
    expect(result.unregistered, "contracts/ERRORS.md lists codes that nothing registers").toEqual([]);
    expect(registered).toEqual(expect.arrayContaining(Object.keys(ERROR_CODES)));
  });

  it("fails for a registered code without a row (the check is not vacuous)", () => {
    defineErrorCodes("TEST_UNDOCUMENTED", { NO_ROW: "A code nobody documented" });
    const markdown = "| code | meaning |\n|---|---|\n| `CONFIG_INVALID` | The config does not match |\n";
    expect(compare(["CONFIG_INVALID", "TEST_UNDOCUMENTED/NO_ROW"], documentedCodes(markdown))).toEqual({ undocumented: ["TEST_UNDOCUMENTED/NO_ROW"], unregistered: [] });
    expect(compare(["CONFIG_INVALID"], documentedCodes(`${markdown}| \`GONE_CODE\` | removed |\n`))).toEqual({ undocumented: [], unregistered: ["GONE_CODE"] });
  });
});
