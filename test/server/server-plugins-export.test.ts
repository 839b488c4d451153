/**
 * The server's plugins are importable from the umbrella's subpath as from the package: a user of
 * `amplifier-ts` mounts the memory API into their own fastify app from `amplifier-ts/server`.
 */
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import * as fromPackage from "@amplifier-ts/server";
import { createTokenGuard, inspectorPage, inspectorRoutes, memoryRoutes } from "amplifier-ts/server";
import { LocalMemory } from "@amplifier-ts/module-memory-local";

describe("amplifier-ts/server", () => {
  it("exports the plugins and the guard of @amplifier-ts/server, the same values", () => {
    expect(memoryRoutes).toBe(fromPackage.memoryRoutes);
    expect(inspectorRoutes).toBe(fromPackage.inspectorRoutes);
    expect(inspectorPage).toBe(fromPackage.inspectorPage);
    expect(createTokenGuard).toBe(fromPackage.createTokenGuard);
  });

  it("mounts the memory API of a memory module into a host app under the host's prefix, guarded there only", async () => {
    const memory = new LocalMemory();
    await memory.createSession({ appName: "a", userId: "u", sessionId: "m1" });
    const app = Fastify();
    app.get("/", async () => "host");
    await app.register(memoryRoutes, { prefix: "/api/memory", memory, token: "t" });
    try {
      expect((await app.inject("/api/memory/sessions")).statusCode).toBe(401);
      expect((await app.inject({ url: "/api/memory/sessions", headers: { authorization: "Bearer t" } })).json()).toMatchObject({ sessions: ["m1"], total: 1 });
      expect((await app.inject("/")).body).toBe("host");
    } finally {
      await app.close();
    }
  });
});
