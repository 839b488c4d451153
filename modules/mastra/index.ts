export { WindowProcessor, type WindowProcessorOptions } from "./window-processor.js";
