export { QUERY_MODES, DEFAULT_QUERY_MODE, RECIPES, recipeOf, type QueryMode, type RetrievalRecipe } from './recipes';
export { retrieve, type RetrieverDeps } from './retrieve';
export { createReranker, createBuiltinReranker, createHttpReranker, type Reranker } from './rerank';
export {
  createQueryService,
  planQuery,
  promptOf,
  QUERY_DEFAULTS,
  type QueryEvent,
  type QueryInput,
  type QueryPlan,
  type QueryResult,
  type QueryService,
  type QueryServiceDeps,
} from './service';
export { generate, streamGeneration, modelFailure, type Generation, type GenerationOptions } from './generate';
export { queryStats, streamStats, type QueryStats } from './stats';
export { resolveLlm } from './model';
export { HISTORY_MESSAGES, HISTORY_TOKENS, NO_CONTEXT, renderPrompt } from './prompts/answer';
export * from './types';
export { answerFromContext, DEFAULT_NO_CONTEXT_RESPONSE, noContextResponse, streamFromContext } from './no-context';
