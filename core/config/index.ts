export { loadConfig, parseConfigText, configFromObject, DEFAULT_CONFIG_FILE, type LoadedConfig } from "./load-config.js";
export { validateConfig } from "./validate-config.js";
export { parseJson, type JsonParseResult, type JsonSyntaxProblem } from "./parse-json.js";
export { suggestKey, didYouMean, editDistance } from "./suggest-key.js";
export { formatPath, pointerToSegments, type PathSegment } from "./format-path.js";
export { checkOptions, type OptionKind } from "./check-options.js";
