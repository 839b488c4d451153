/**
 * The storage under the memory tool (modules/memory-tool, Anthropic's `memory_20250818` command
 * set over a `/memories` tree): named trees of UTF-8 text files. Paths are relative to the tree's
 * root, `/`-separated segments already checked by the tool (no `.`/`..`, no empty or hidden
 * segment, no NUL, backslash or control character), e.g. `notes/today.md`; `""` is the root.
 *
 * A directory exists while a file lies under it: removing the last file of a directory removes
 * the directory (the file store prunes it; PostgreSQL never had it), so every backend shows the
 * same tree. The root always exists.
 *
 * Reads (`read`, `list`) take no lock. Every change runs in `transact(tree, fn)`: while `fn` runs
 * no other transaction of the same tree runs — in this process, another process or, for
 * PostgreSQL, another machine — so a read-modify-write in `fn` (str_replace, insert) can never lose
 * another writer's edit, and limits checked in `fn` hold when it commits.
 *
 * | backend | exclusion | a failure in `fn` |
 * |---|---|---|
 * | file (modules/memory-tool) | a lock file per tree (O_EXCL, owner pid; a dead owner's lock is taken over) | each write is atomic (temp + rename); earlier writes of `fn` stay |
 * | postgres (@amplifier-ts/agent-stores-postgres) | one transaction holding an advisory lock on the tree | rolled back whole |
 */
export interface MemoryTreeStore {
  /** "file", "postgres" or a third party's name. */
  readonly kind: string;
  /** Opens what the store needs (folder, pool, tables); optional — the first operation does it. */
  connect(): Promise<void>;
  /** Releases it; final and idempotent. */
  disconnect(): Promise<void>;
  /** The text of a file, or undefined when no file has this path (a directory is no file). */
  read(tree: string, path: string): Promise<string | undefined>;
  /** Every file under `dir` (`""`: the whole tree), sorted by path (code unit order). */
  list(tree: string, dir: string): Promise<MemoryTreeFile[]>;
  /** Runs `fn` holding the tree exclusively (see above); its result is transact's. */
  transact<T>(tree: string, fn: (tx: MemoryTreeTransaction) => Promise<T>): Promise<T>;
}

/** A file of a tree: its path from the root and its size in UTF-8 bytes. */
export interface MemoryTreeFile {
  path: string;
  size: number;
}

/** What `fn` of `transact` may do; every call sees the writes made before it in the same `fn`. */
export interface MemoryTreeTransaction {
  read(path: string): Promise<string | undefined>;
  list(dir: string): Promise<MemoryTreeFile[]>;
  /** Creates or replaces the file (its parent directories come with it). */
  write(path: string, text: string): Promise<void>;
  /** Removes the file, or the directory and everything under it. */
  remove(path: string): Promise<void>;
  /** Moves a file or a directory (with everything under it) to `to`, which the caller made sure is free. */
  move(from: string, to: string): Promise<void>;
}
