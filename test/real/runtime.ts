import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The real local runtime of the "real models" pass: Ollama and the embedding server that scripts/test.mjs starts
 * (scripts/models/models.sh) and names in TEST_OLLAMA_URL and TEST_EMBEDDINGS_URL. The catalog lists them under
 * the ordinary provider types: `local` (ollama), `local-openai` (openai, Ollama's /v1) and `embeddings` (openai:
 * multilingual-e5-small with its "query: " / "passage: " prefixes, and all-MiniLM-L6-v2).
 */

export interface RealRuntime {
  ollamaUrl: string;
  embeddingsUrl: string;
  /** Ollama's log (TEST_OLLAMA_LOG): one line per request it answered. */
  ollamaLog: string;
  /** A models.toml naming them. */
  catalogPath: string;
}

/** Output cap of one call: a 1 KB document's records fit well within it. */
export const MAX_OUTPUT_TOKENS = 384;

export function realRuntime(): RealRuntime {
  const ollamaUrl = process.env.TEST_OLLAMA_URL;
  const embeddingsUrl = process.env.TEST_EMBEDDINGS_URL;
  const ollamaLog = process.env.TEST_OLLAMA_LOG;
  if (!ollamaUrl || !embeddingsUrl || !ollamaLog)
    throw new Error(
      'TEST_OLLAMA_URL, TEST_EMBEDDINGS_URL and TEST_OLLAMA_LOG must name the servers of scripts/models/models.sh and its log',
    );
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgrag-real-'));
  const catalogPath = path.join(dir, 'models.toml');
  fs.writeFileSync(catalogPath, catalog(ollamaUrl, embeddingsUrl));
  return { ollamaUrl, embeddingsUrl, ollamaLog, catalogPath };
}

function llm(name: string, description: string): string {
  return `
[[providers.models]]
name = "${name}"
model_type = "llm"
description = "${description}"
[providers.models.capabilities]
context_length = 8192
`;
}

function catalog(ollama: string, embeddings: string): string {
  const budget = `
[providers.budget]
max_output_tokens = ${MAX_OUTPUT_TOKENS}
concurrency = 1
`;
  return `
[[providers]]
name = "mock"
type = "mock"
[[providers.models]]
name = "mock-llm"
model_type = "llm"
[[providers.models]]
name = "mock-embedding"
model_type = "embedding"
[providers.models.capabilities]
embedding_dimension = 256
similarity_threshold = 0.15

[[providers]]
name = "local"
type = "ollama"
api_base = "${ollama}"
${budget}
${llm('smollm2', 'SmolLM2-135M-Instruct Q4_1')}
${llm('gemma3', 'Gemma 3 270M Q4_K_M, a base model')}

[[providers]]
name = "local-openai"
type = "openai"
api_base = "${ollama}/v1"
${budget}
${llm('smollm2', 'SmolLM2-135M-Instruct Q4_1 through the OpenAI-compatible API')}

[[providers]]
name = "embeddings"
type = "openai"
api_base = "${embeddings}/v1"
[[providers.models]]
name = "multilingual-e5-small"
model_type = "embedding"
[providers.models.capabilities]
context_length = 512
embedding_dimension = 384
query_prefix = "query: "
document_prefix = "passage: "
[[providers.models]]
name = "all-MiniLM-L6-v2"
model_type = "embedding"
[providers.models.capabilities]
context_length = 256
embedding_dimension = 384
`;
}

/** The environment of a test app on the real runtime (startTestApp's defaults are the mock's). */
export function realEnv(
  rt: RealRuntime,
  llm: { provider: string; model: string },
  embedding = { provider: 'embeddings', model: 'multilingual-e5-small' },
) {
  return {
    SERVICE_MODELS_CONFIG: rt.catalogPath,
    SERVICE_LLM_PROVIDER: llm.provider,
    SERVICE_DEFAULT_LLM_MODEL: llm.model,
    SERVICE_EMBEDDING_PROVIDER: embedding.provider,
    SERVICE_EMBEDDING_MODEL: embedding.model,
    SERVICE_MAX_GLEANING: '0',
    // No community reports in the background: the model calls and timings are those of ingestion and the queries.
    SERVICE_COMMUNITY_REFRESH_MS: '0',
  };
}

/** Lines of the lane's report, printed as they come (jest's console adds a stack trace to each line). */
export function report(line: string): void {
  process.stdout.write(`[real models] ${line}\n`);
}

/** Generation requests Ollama has answered so far (its request log: chat, generate and the OpenAI-compatible ones). */
export function ollamaGenerations(rt: RealRuntime): number {
  const log = fs.readFileSync(rt.ollamaLog, 'utf8');
  return log.split('\n').filter((line) => /^\[GIN\] .*\| +POST +"\/(api\/(chat|generate)|v1\/(chat\/)?completions)"/.test(line)).length;
}
