/**
 * The Inspector mounted into a host's fastify app: the page (inspectorPage, at /) and its code and
 * data (inspectorRoutes, at /inspector), one guard shared by both so the page's login opens the
 * data. Each plugin's guard stays in its own context: the host's routes want no token.
 */
import Fastify, { type FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { liveSessions } from "@amplifier-ts/inspector";
import { createTokenGuard, inspectorPage, inspectorRoutes } from "@amplifier-ts/server";

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

function hostApp(): FastifyInstance {
  const app = Fastify();
  apps.push(app);
  app.get("/health", async () => ({ ok: true }));
  return app;
}

describe("inspectorPage and inspectorRoutes in a host app", () => {
  it("with one shared guard: the page's login sets a cookie that opens the data; the host's route wants nothing", async () => {
    const app = hostApp();
    const guard = createTokenGuard("t0ken");
    await app.register(inspectorPage, { token: guard });
    await app.register(inspectorRoutes, { prefix: "/inspector", sources: [liveSessions()], token: guard });

    expect((await app.inject("/")).statusCode).toBe(401);
    expect((await app.inject("/")).headers["content-type"]).toContain("text/html");
    expect((await app.inject("/inspector/assets/inspector.js")).body).toBe("401: open /?token=<token> first\n");
    expect((await app.inject("/inspector/api/sessions")).json()).toMatchObject({ code: "UNAUTHORIZED" });
    expect((await app.inject("/health")).json()).toEqual({ ok: true });

    const login = await app.inject("/?token=t0ken");
    expect(login.statusCode).toBe(303);
    expect(login.headers.location).toBe("/");
    const cookie = String(login.headers["set-cookie"]).split(";")[0]!;
    expect((await app.inject({ url: "/", headers: { cookie } })).statusCode).toBe(200);
    expect((await app.inject({ url: "/inspector/assets/inspector.css", headers: { cookie } })).statusCode).toBe(200);
    expect((await app.inject({ url: "/inspector/api/sessions", headers: { cookie } })).json()).toEqual({ sessions: [] });
    expect((await app.inject({ url: "/inspector/api/sessions", headers: { authorization: "Bearer t0ken" } })).statusCode).toBe(200);
  });

  it("with a string token each, each plugin draws its own key: the page's cookie does not open the data (share a guard for that)", async () => {
    const app = hostApp();
    await app.register(inspectorPage, { token: "t0ken" });
    await app.register(inspectorRoutes, { prefix: "/inspector", sources: [liveSessions()], token: "t0ken" });
    const cookie = String((await app.inject("/?token=t0ken")).headers["set-cookie"]).split(";")[0]!;
    expect((await app.inject({ url: "/", headers: { cookie } })).statusCode).toBe(200);
    expect((await app.inject({ url: "/inspector/api/sessions", headers: { cookie } })).statusCode).toBe(401);
  });

  it("without a token nothing is guarded; a bad query parameter is the Inspector's 400 INVALID_PARAMETER", async () => {
    const app = hostApp();
    await app.register(inspectorRoutes, { prefix: "/inspector", sources: [liveSessions()] });
    expect((await app.inject("/inspector/api/sessions")).json()).toEqual({ sessions: [] });
    const bad = await app.inject("/inspector/api/session?id=x");
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: "INVALID_PARAMETER", parameter: "source" });
  });

  it("refuses, when it registers, a prefix other than /inspector (the page loads its code and data from there)", async () => {
    for (const prefix of ["/tools/inspector", ""]) {
      const app = hostApp();
      app.register(inspectorRoutes, { prefix, sources: [] });
      await expect(app.ready(), prefix).rejects.toMatchObject({ code: "INVALID_ARGUMENT", details: expect.objectContaining({ path: "inspectorRoutes.prefix", given: prefix }) });
    }
  });
});
