// amplifier-ts/window: the window engine, @amplifier-ts/window — assembleWindow and
// WindowAssembler turn a stored conversation into the window a model call sends (instructions
// first, critical messages kept, tool pairs whole, turns cut at cache-friendly points), usable
// without a session (contracts/WINDOW.md); with them the toolkit third-party context modules use.
export * from "@amplifier-ts/window";
