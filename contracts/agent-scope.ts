/**
 * The agent a history belongs to when a caller names none (HistoryStore contract, version 2).
 * Data written before stores knew agents is this agent's: every backend reads its old layout as
 * the default agent's (contracts/HISTORY-STORES.md, "Migration").
 */
export const DEFAULT_AGENT_ID = "default";

/** Agent ids share the session-id alphabet: they become folder names, key parts and column values. */
export const AGENT_ID_PATTERN = /^(?!\.)(?!.*\.\.)[A-Za-z0-9._-]{1,128}$/;
