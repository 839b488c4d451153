import { afterEach, describe, expect, it } from "vitest";
import { connectionUrl, DEFAULT_PG_URL, redactUrl, withDefaultUser } from "@amplifier-ts/pg-kit";

const saved = process.env.AMPLIFIER_PG_URL;
afterEach(() => {
  if (saved === undefined) delete process.env.AMPLIFIER_PG_URL;
  else process.env.AMPLIFIER_PG_URL = saved;
});

describe("redactUrl: the url as errors show it", () => {
  it("masks the password and keeps the user, host, port, database and parameters", () => {
    expect(redactUrl("postgres://alice:hunter2@db.example:6543/app?sslmode=require")).toBe("postgres://alice:***@db.example:6543/app?sslmode=require");
  });

  it("leaves a url without a password as it is", () => {
    expect(redactUrl("postgres://alice@127.0.0.1:5432/test")).toBe("postgres://alice@127.0.0.1:5432/test");
  });

  it("never echoes what it cannot parse (it might be a password pasted in the wrong place)", () => {
    expect(redactUrl("//alice:hunter2@db/test")).toBe("(unparsable url)");
  });
});

describe("connectionUrl: the url a store connects to", () => {
  const source = { module: "test-store", path: "store.url", message: "A PostgreSQL store needs a postgres:// url" };

  it("takes the given url, else AMPLIFIER_PG_URL, else the default; each with the default user", () => {
    process.env.AMPLIFIER_PG_URL = "postgresql://from-env@127.0.0.1:5432/envdb";
    expect(connectionUrl("postgres://given@127.0.0.1/db", source)).toBe("postgres://given@127.0.0.1/db");
    expect(connectionUrl(undefined, source)).toBe("postgresql://from-env@127.0.0.1:5432/envdb");
    delete process.env.AMPLIFIER_PG_URL;
    expect(connectionUrl(undefined, source)).toBe(withDefaultUser(DEFAULT_PG_URL));
    expect(DEFAULT_PG_URL).toBe("postgres://127.0.0.1:5432/test");
  });

  it.each([["mysql://h/db"], [42], [""]])("refuses %j with INVALID_ARGUMENT naming the option, the expected form and the message given", (url) => {
    expect(() => connectionUrl(url, source)).toThrow(
      expect.objectContaining({ code: "INVALID_ARGUMENT", message: expect.stringContaining(source.message), details: expect.objectContaining({ module: "test-store", path: "store.url", expected: "postgres://user@host:port/database", given: url }) }),
    );
  });

  it("without a message, the code's own message", () => {
    expect(() => connectionUrl("http://h/db", { module: "m", path: "AMPLIFIER_PG_URL" })).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT", details: expect.objectContaining({ path: "AMPLIFIER_PG_URL" }) }));
  });
});
