// amplifier-ts/strategies: the compaction strategies, @amplifier-ts/strategies — the built-in
// strategies, their registry (register by name; defineStrategy writes a new one, defineCutStrategy
// one that cuts the oldest units) and the pipeline the context managers run (contracts/STRATEGIES.md).
// The same as amplifier-ts/modules/strategies, the older path, which stays.
export * from "@amplifier-ts/strategies";
