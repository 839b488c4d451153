/**
 * The Inspector page's address (modules/inspector/ui/app.ts parseRoute / routeHash): every hash
 * maps to a view — the list, a session, a turn, or "not found" with the reason — and none throws.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parseRoute, routeHash } from "../../modules/inspector/ui/app.js";

describe("parseRoute", () => {
  it("reads the list, a session and a turn, with %-encoded source and id", () => {
    for (const hash of ["", "#", "#/", "#//"]) expect(parseRoute(hash), hash).toEqual({ view: "list" });
    expect(parseRoute("#/s/jsonl/chat%2F1")).toEqual({ view: "session", source: "jsonl", sessionId: "chat/1" });
    expect(parseRoute("#/s/jsonl/chat/")).toEqual({ view: "session", source: "jsonl", sessionId: "chat" });
    expect(parseRoute("#/s/live/r%C3%A9sum%C3%A9/t/12")).toEqual({ view: "session", source: "live", sessionId: "résumé", turn: 12 });
  });

  it("answers not-found, with the reason, for a malformed %-escape instead of throwing URIError", () => {
    for (const hash of ["#/s/%E0%A4%A/x", "#/s/jsonl/%", "#/s/%zz/x", "#/s/a/b/t/%E0"]) {
      const route = parseRoute(hash);
      expect(route, hash).toEqual({ view: "not-found", hash, reason: "the address holds a malformed %-escape" });
    }
  });

  it("answers not-found for addresses the page has no view for, and for bad turns", () => {
    for (const hash of ["#/nothing", "#/s", "#/s/jsonl", "#/s//x", "#/s/jsonl/", "#/s/a/b/c", "#/s/a/b/t", "#/s/a/b/t/0", "#/s/a/b/t/-1", "#/s/a/b/t/1.5", "#/s/a/b/t/ 2", "#/s/a/b/t/1e3", "#/s/a/b/x/3", "#/s/a/b/t/3/more", "#/s/a/b/t/99999999999999999999"]) {
      expect(parseRoute(hash).view, hash).toBe("not-found");
    }
  });

  it("never throws, and reads back every route routeHash writes", () => {
    fc.assert(fc.property(fc.string({ unit: "binary" }), (hash) => void parseRoute(hash)));
    const part = fc.string({ unit: "binary", minLength: 1 });
    fc.assert(
      fc.property(part, part, fc.option(fc.integer({ min: 1, max: 1_000_000 }), { nil: undefined }), (source, sessionId, turn) => {
        const route = turn === undefined ? { view: "session" as const, source, sessionId } : { view: "session" as const, source, sessionId, turn };
        // Lone surrogates cannot be %-encoded (encodeURIComponent throws): such ids cannot be linked to.
        let hash: string;
        try {
          hash = routeHash(route);
        } catch {
          return;
        }
        expect(parseRoute(hash)).toEqual(route);
      }),
    );
  });
});
