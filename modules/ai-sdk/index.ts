export { fitWindowPrepareStep, type PrepareStepWindowOptions, type WindowPrepareStep } from "./prepare-step.js";
export { fitWindowMiddleware } from "./window-middleware.js";
export type { WindowEvent, WindowOptions } from "./window-options.js";
