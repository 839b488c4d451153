/**
 * The Spend panel's rows (issue 29 §2): what the session spent on the conversation, on compaction
 * and on cache writes, each with its tokens and USD, then the total and compaction's share.
 * Pure: the page renders the strings as text.
 */
import type { SpendFigures } from "../inspector-data.js";

export interface SpendRow {
  /** "conversation" | "compaction" | "cache writes" | "total". */
  part: string;
  tokens: string;
  usd: string;
  detail: string;
}

const int = (n: number) => Math.round(n).toLocaleString("en");
const usd = (n: number | undefined) => (n === undefined ? "–" : `$${n.toFixed(4)}`);
const percent = (share: number) => `${(share * 100).toFixed(1)} %`;

export function spendRows(spend: SpendFigures): SpendRow[] {
  const c = spend.conversation;
  const k = spend.compaction;
  const w = spend.cacheWrites;
  const all = c.inputTokens + c.outputTokens + k.inputTokens + k.outputTokens + w.tokens;
  return [
    {
      part: "conversation",
      tokens: int(c.inputTokens + c.outputTokens),
      usd: usd(c.usd),
      detail: `${int(c.inputTokens)} in${spend.cacheSimulated ? ` (${int(c.cacheReadTokens)} from cache)` : " (no cache simulated: priced uncached)"}, ${int(c.outputTokens)} out`,
    },
    {
      part: "compaction",
      tokens: int(k.inputTokens + k.outputTokens),
      usd: usd(k.usd),
      detail: `${int(k.summarizerCalls)} summarizer call${k.summarizerCalls === 1 ? "" : "s"}, ${int(k.providerCompactions)} provider compaction${k.providerCompactions === 1 ? "" : "s"}: ${int(k.inputTokens)} in, ${int(k.outputTokens)} out`,
    },
    { part: "cache writes", tokens: int(w.tokens), usd: usd(w.usd), detail: spend.cacheSimulated ? "the new prefixes written to the prompt cache" : "not simulated" },
    {
      part: "total",
      tokens: int(all),
      usd: usd(spend.totalUsd),
      detail: `compaction's share: ${spend.compactionShare === undefined ? "–" : `${percent(spend.compactionShare)} of cost`}, ${percent(spend.compactionTokenShare)} of tokens`,
    },
  ];
}
