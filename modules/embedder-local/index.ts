export {
  createLocalEmbedder,
  registerLocalEmbedder,
  mount,
  meta,
  localEmbedderOptions,
  localEmbedderErrors,
  LOCAL_EMBEDDING_DIMENSIONS,
  LOCAL_EMBEDDER_NAME,
  type LocalEmbedder,
  type LocalEmbedderOptions,
} from "./local-embedder.js";
