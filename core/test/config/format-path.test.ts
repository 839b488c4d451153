import { describe, expect, it } from "vitest";
import { formatPath, pointerToSegments } from "../../config/format-path.js";

describe("formatPath", () => {
  it("writes keys with dots and indices with brackets", () => {
    expect(formatPath(["session", "context", "config", "maxTokens"])).toBe("session.context.config.maxTokens");
    expect(formatPath(["tools", 1, "name"])).toBe("tools[1].name");
    expect(formatPath([])).toBe("");
  });

  it("quotes keys that are not identifiers", () => {
    expect(formatPath(["hooks", 0, "config", "odd key"])).toBe('hooks[0].config["odd key"]');
    expect(formatPath(["$schema"])).toBe("$schema");
  });
});

describe("pointerToSegments", () => {
  it("tells array indices from numeric object keys by walking the document", () => {
    const document = { tools: [{ name: "a" }], map: { "0": 1 } };
    expect(pointerToSegments("/tools/0/name", document)).toEqual(["tools", 0, "name"]);
    expect(pointerToSegments("/map/0", document)).toEqual(["map", "0"]);
  });

  it("unescapes ~1 and ~0 (RFC 6901)", () => {
    expect(pointerToSegments("/a~1b/c~0d", {})).toEqual(["a/b", "c~d"]);
    expect(pointerToSegments("", {})).toEqual([]);
  });
});
