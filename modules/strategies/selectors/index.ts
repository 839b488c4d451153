import { messageWindowStrategy } from "./message-window.js";
import { tokenWindowStrategy } from "./token-window.js";
import { unboundedStrategy } from "./unbounded.js";

export { MessageWindowSelector, messageWindowStrategy, messageWindowOptions, type MessageWindowOptions } from "./message-window.js";
export { UnboundedContext, unboundedStrategy, unboundedOptions } from "./unbounded.js";
export { TokenWindowSelector, tokenWindowStrategy, tokenWindowOptions, type TokenWindowOptions } from "./token-window.js";

/** The strategies that pick which turns to send (the newest N messages or tokens, or all), name → definition (the registry imports this). */
export const selectorStrategies = {
  unbounded: unboundedStrategy,
  "message-window": messageWindowStrategy,
  "token-window": tokenWindowStrategy,
};
