import { describe, expect, it } from "vitest";
import { describeMemoryContract } from "../../../testing/memory-contract.js";
import { NullMemory } from "../index.js";

describeMemoryContract("memory-null", async (limits) => ({ memory: new NullMemory(limits) }), { storesNothing: true });

describe("memory-null", () => {
  it("holds nothing, so close refuses nothing: calls after close still succeed (every other memory answers MEMORY/CLOSED)", async () => {
    const memory = new NullMemory();
    await memory.close();
    expect(await memory.createSession({ appName: "a", userId: "u", sessionId: "s" })).toBe("s");
    expect(await memory.listSessions()).toEqual([]);
  });
});
