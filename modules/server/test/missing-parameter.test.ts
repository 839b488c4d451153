import { afterEach, describe, expect, it } from "vitest";
import { liveSessions } from "@amplifier-ts/inspector";
import { startServer, type RunningServer } from "@amplifier-ts/server";

/**
 * A required query parameter left out is a 400 that names it. The error handler read ajv's
 * `additionalProperty` and `instancePath` but not `missingProperty`: a request without `source`
 * answered `"parameter": ""` and "query parameter  must have required property 'source'".
 */
const running: RunningServer[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) await server.close();
});

describe("a missing required query parameter", () => {
  it("is a 400 INVALID_PARAMETER naming the parameter", async () => {
    const server = await startServer({ port: 0, inspector: { sources: [liveSessions()] } });
    running.push(server);
    for (const [query, parameter] of [["", "source"], ["id=x", "source"], ["source=live", "id"]] as const) {
      const response = await fetch(`${server.url}/inspector/api/session?${query}`);
      expect(response.status, query).toBe(400);
      const body = (await response.json()) as { code: string; parameter: string; message: string };
      expect(body.code, query).toBe("INVALID_PARAMETER");
      expect(body.parameter, query).toBe(parameter);
      expect(body.message, query).toBe(`query parameter ${parameter} is required`);
    }
  });
});
