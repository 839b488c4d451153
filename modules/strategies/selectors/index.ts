import { messageWindowStrategy } from "./message-window.js";
import { tokenWindowStrategy } from "./token-window.js";

export { MessageWindowSelector, messageWindowStrategy, messageWindowOptions, type MessageWindowOptions } from "./message-window.js";
export { TokenWindowSelector, tokenWindowStrategy, tokenWindowOptions, type TokenWindowOptions } from "./token-window.js";

/** The Steamship memory seed's selectors, name → definition (the registry imports this). */
export const selectorStrategies = {
  "message-window": messageWindowStrategy,
  "token-window": tokenWindowStrategy,
};
