/**
 * Types of amplifier-module-context-example: amplifier-ts's own contract types (from its peer
 * dependencies), plus this module's config.
 */
import type { ContextManager, CoordinatorContract, Message, ModuleMeta, Provider, WindowRequestOptions } from "@amplifier-ts/contracts";
import type { TokensCapability } from "@amplifier-ts/tokens";

export type { Message };

/** The coordinator as this module uses it (amplifier-ts's Coordinator satisfies it). */
export type CoordinatorLike = Pick<CoordinatorContract, "mount" | "getCapability" | "hooks">;

export interface RecentTurnsConfig {
  /** Most user turns a window holds; critical messages come on top. Default 8. */
  maxTurns?: number;
  /** Budget when the request names none and the provider reports no context window. Default 100 000. */
  maxTokens?: number;
  /** Tokens kept free below context_window − max_output_tokens. Default 1 000. */
  safetyMargin?: number;
  /** Model counted for when the provider names none. Default "gpt-4o". */
  model?: string;
}

export interface RecentTurnsInit extends RecentTurnsConfig {
  hooks?: CoordinatorLike["hooks"];
  /** The host's "tokens" capability, looked up at each request; without one, core's getTokenCounter counts. */
  tokens?: () => TokensCapability | undefined;
}

/** The five context-manager methods of amplifier-ts, plus clearRun. */
export declare class RecentTurnsContext implements ContextManager {
  constructor(init?: RecentTurnsInit);
  readonly options: Required<RecentTurnsConfig>;
  addMessage(message: Message): Promise<void>;
  getMessagesForRequest(tokenBudget?: number, provider?: Provider, options?: WindowRequestOptions): Promise<Message[]>;
  getMessages(): Promise<Message[]>;
  setMessages(messages: Message[]): Promise<void>;
  clear(): Promise<void>;
  clearRun(runId: string): Promise<void>;
}

export declare const MODULE_NAME: "amplifier-module-context-example";

export declare const meta: Readonly<ModuleMeta & { name: typeof MODULE_NAME; kind: "context" }>;

export declare function mount(coordinator: CoordinatorLike, config?: RecentTurnsConfig): Promise<RecentTurnsContext>;
