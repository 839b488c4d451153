// One agent process of memory-tool-processes.test.ts: it edits the shared tree through the built
// packages (as an installed user would), then prints a JSON line of what it did.
// argv: <backend file|postgres> <folder or schema> <pg url> <worker id> <rounds>
import { FileMemoryTree, MemoryTool, MEMORY_LIMIT_DEFAULTS } from "../../modules/memory-tool/dist/index.js";

const [backend, where, url, id, roundsText] = process.argv.slice(2);
const rounds = Number(roundsText);
const store =
  backend === "file"
    ? new FileMemoryTree({ path: where, lockTimeoutMs: 60_000 })
    : new (await import("../../modules/agent-stores-postgres/dist/index.js")).PostgresMemoryTree({ url, schema: where, poolSize: 2 });
const tool = new MemoryTool({ store, limits: { ...MEMORY_LIMIT_DEFAULTS, lockTimeoutMs: 60_000 }, tree: () => "shared" });

let increments = 0;
let conflicts = 0;
for (let round = 0; round < rounds; round++) {
  // An insert: a read-modify-write of the whole file under the tree's exclusion.
  const inserted = await tool.execute({ command: "insert", path: "/memories/log.md", insert_line: 0, insert_text: `${id}-${round}` });
  if (inserted.isError) throw new Error(`insert: ${inserted.output}`);
  // A counter moved by str_replace from the value last seen: another writer's change in between
  // makes old_str disappear, the tool refuses, the agent reads again — an edit is refused, never lost.
  for (;;) {
    const seen = (await tool.execute({ command: "view", path: "/memories/counter.md" })).output.match(/count: (\d+)/);
    const value = Number(seen[1]);
    const moved = await tool.execute({ command: "str_replace", path: "/memories/counter.md", old_str: `count: ${value}\n`, new_str: `count: ${value + 1}\n` });
    if (!moved.isError) break;
    if (!moved.output.startsWith("No replacement was performed")) throw new Error(`str_replace: ${moved.output}`);
    conflicts++;
  }
  increments++;
}
await store.disconnect();
process.stdout.write(`${JSON.stringify({ id, increments, conflicts })}\n`);
