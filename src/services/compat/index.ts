export { type CompatAnswer, type PreparedTurn, type SamplingSettings, type TurnRequest } from './answer';
export { type EmbedRequest, type Embedded } from './embeddings';
export { DEFAULT_KEEP_ALIVE_MS, keepAliveMs } from './keep-alive';
export { COMPAT_MODES, type CompatMode, type ModelEntry, type ModelShow, RAG_FAMILY, workspaceOfModel } from './models';
export { createCompatService, type CompatService } from './service';
export { type AnswerEvent, answerEvents } from './stream';
export * from './ollama';
export * from './openai';
