export { createOpenAIEmbedder, registerOpenAIEmbedder, mount, meta, openAIEmbedderOptions, DEFAULT_EMBEDDING_MODEL, MAX_INPUTS_PER_REQUEST, type OpenAIEmbedderOptions } from "./openai-embedder.js";
