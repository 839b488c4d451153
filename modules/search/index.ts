export { HistorySearchIndex, DEFAULT_K, type HistorySearchIndexOptions, type IndexStats } from "./history-search-index.js";
export { InMemoryVectorStore, matches as matchesMetadataFilter, type InMemoryVectorStoreOptions } from "./in-memory-vector-store.js";
export { reciprocalRankFusion, RRF_CONSTANT } from "./reciprocal-rank-fusion.js";
export { tokenize, distinctTerms } from "./tokenizer.js";
export { searchableText, MAX_INDEXED_CHARS } from "./message-text.js";
export { embedderOf } from "./embedder-capability.js";
export { checkDocument, toVector } from "./in-memory-vector-store.js";
export { recallQuery } from "./recall-query.js";
export { recallCandidates, type RankedHit } from "./recall-ranking.js";
