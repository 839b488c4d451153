// amplifier-ts/contracts: @amplifier-ts/contracts — the interfaces every module kind implements,
// the message vocabulary and its validators (validateMessage, messageSchema, the content-block
// schemas, CONTRACT_VALIDATORS), the event map and its kinds (EVENT_KINDS: decisions and
// notifications), the error registry (createError, defineErrorCodes, registeredErrorCodes, the
// providers' and stores' codes) and the capability names. Imports nothing else of ours,
// so a third-party module can depend on this path alone.
export * from "@amplifier-ts/contracts";
