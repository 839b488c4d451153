export { startTurn, type Turn, type StartTurnOptions } from "./start-turn.js";
export { runTool } from "./run-tool.js";
