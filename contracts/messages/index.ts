// The message vocabulary every module shares: what a message is (shape), the one walker over its
// content, and its text.
export { forEachContentPart, forEachResultText, callArguments, type ContentVisitor, type ToolCallPart, type ToolStyle } from "./message-content.js";
export { MESSAGE_BODY, MESSAGE_FACTS, MESSAGE_STORED_SIZE, knownFacts, messageBody, storedSize, type MessageFacts } from "./message-facts.js";
export { callsOf, factsOf, hasTurnContent, idOf, isCritical, isEphemeral, isInstruction, isResultCarrier, isToolResultBlock, isTurnNote, resultIdsOf, type CallRef } from "./message-shape.js";
export { joinText, textLength } from "./message-text.js";
