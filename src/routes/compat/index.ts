import type { Api } from '../../http/api';
import type { Runtime } from '../../services/runtime';
import { ollamaRoutes } from './ollama';
import { openAiRoutes } from './openai';

/** The compatibility APIs (docs/api.md §4.12), outside /api/v1: the local runtime's and OpenAI's. */
export function compatRoutes(root: Api, rt: Runtime): void {
  ollamaRoutes(root, rt);
  openAiRoutes(root, rt);
}
