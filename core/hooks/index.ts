export { HookBus, type HookBusOptions } from "./hook-bus.js";
export { DEFAULT_HOOK_TIMEOUT_MS } from "./options.js";
export { assertEventName } from "./event-name.js";
export { startFold, foldResult, finishFold, type FoldState } from "./fold.js";
export { validateHookResult, validateAnyHookResult, hookResultSchema, foldedHookResultSchema } from "./hook-result-schema.js";
