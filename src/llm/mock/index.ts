export { MockLlm, MOCK_TEXT_MARKER, splitAtMarker } from './llm';
export { MockEmbeddings } from './embeddings';
export { NO_CONTEXT_PHRASE } from './respond';
export { MAX_ENTITIES_PER_CALL } from './extract';
