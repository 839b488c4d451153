import { describe, expect, it } from "vitest";
import { createHistoryStore, DRIVER_PACKAGES, driverTypesOf, HybridStore, loadHistoryStore, MemoryStore } from "../../modules/stores/index.js";
import { driver as postgresDriver, PostgresStore } from "../../modules/store-postgres/index.js";
import { driver as redisDriver, RedisStore } from "../../modules/store-redis/index.js";
import { thrown } from "../support/thrown.js";

/**
 * @amplifier-ts/stores holds no driver: PostgreSQL and Redis are packages of their own, so a JSONL
 * user installs neither pg nor redis. createHistoryStore is synchronous and takes drivers from its
 * caller; loadHistoryStore imports the driver packages a config names.
 */
describe("store drivers", () => {
  it("createHistoryStore without the driver of a postgres or redis store: STORE_DRIVER_MISSING naming the package to install", () => {
    for (const type of ["postgres", "redis"] as const) {
      const error = thrown(() => createHistoryStore({ type }));
      expect(error.code).toBe("STORE_DRIVER_MISSING");
      expect(error.message).toContain(DRIVER_PACKAGES[type]);
      expect(error.details).toMatchObject({ path: "store.type", given: type, hint: `npm install ${DRIVER_PACKAGES[type]}` });
    }
  });

  it("createHistoryStore with drivers given builds each store synchronously", async () => {
    const drivers = { postgres: postgresDriver, redis: redisDriver };
    const pg = createHistoryStore({ type: "postgres", url: "postgres://127.0.0.1:5432/test" }, { drivers });
    const redis = createHistoryStore({ type: "redis", url: "redis://127.0.0.1:6379" }, { drivers });
    expect(pg).toBeInstanceOf(PostgresStore);
    expect(redis).toBeInstanceOf(RedisStore);
    await Promise.all([pg.close(), redis.close()]);
  });

  it("loadHistoryStore imports the driver packages a config names, a hybrid's two sides included", async () => {
    const pg = await loadHistoryStore({ type: "postgres", url: "postgres://127.0.0.1:5432/test" });
    expect(pg.constructor.name).toBe("PostgresStore");
    const hybrid = await loadHistoryStore({ type: "hybrid", hot: { type: "redis", url: "redis://127.0.0.1:6379" }, cold: { type: "postgres", url: "postgres://127.0.0.1:5432/test" } });
    expect(hybrid).toBeInstanceOf(HybridStore);
    expect((hybrid as HybridStore).cold.constructor.name).toBe("PostgresStore");
    const memory = await loadHistoryStore({ type: "memory" });
    expect(memory).toBeInstanceOf(MemoryStore);
    await Promise.all([pg.close(), hybrid.close(), memory.close()]);
  });

  it("a driver given in deps is used instead of importing the package", async () => {
    const created: unknown[] = [];
    const store = await loadHistoryStore({ type: "postgres", url: "postgres://example/none" }, {
      drivers: { postgres: { type: "postgres", create: (options) => (created.push(options), new MemoryStore()) } },
    });
    expect(store).toBeInstanceOf(MemoryStore);
    expect(created).toEqual([{ url: "postgres://example/none" }]);
  });

  it("driverTypesOf lists the driver types of a config, nothing for stores without drivers or malformed configs", () => {
    expect(driverTypesOf({ type: "jsonl" })).toEqual([]);
    expect(driverTypesOf({ type: "redis" })).toEqual(["redis"]);
    expect(driverTypesOf({ type: "hybrid", hot: { type: "redis" }, cold: { type: "redis" } })).toEqual(["redis"]);
    expect(driverTypesOf({ type: "hybrid", hot: { type: "memory" }, cold: { type: "postgres" } })).toEqual(["postgres"]);
    expect(driverTypesOf(null)).toEqual([]);
    expect(driverTypesOf("postgres")).toEqual([]);
  });

  it("each driver package exports a driver of its own type", () => {
    expect(postgresDriver.type).toBe("postgres");
    expect(redisDriver.type).toBe("redis");
  });
});
