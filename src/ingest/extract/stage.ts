import { isOutage } from '../../domain/errors';
import { contentHash } from '../../domain/ids';
import { startInSlices } from '../../domain/turns';
import { statementsOf } from './describe';
import { type CachedExtraction, extractWithCache, readExtractions } from './cache';
import { addUsage, type Run } from '../pipeline/run';
import { withSpan } from '../../llm/tracing';
import { findPromptOverride } from '../../prompts/overrides';

/**
 * The extraction stage: every chunk concurrently (the provider wrapper bounds concurrency process-wide),
 * each chunk's outcome recorded on its ChunkRecord; one failure never stops the others. In retry mode a
 * completed chunk reuses its cached extraction whatever model wrote it.
 */
export async function extractChunks(run: Run): Promise<Map<string, CachedExtraction>> {
  const { deps, scope, doc, options, progress } = run;
  const known = await readExtractions(
    deps.stores.kv,
    scope,
    run.chunks.map((c) => c.id),
  );
  const results = new Map<string, CachedExtraction>();
  const entities = new Set<string>();
  const relations = new Set<string>();
  const total = Math.max(1, run.chunks.length);
  const record = (chunkId: string, extraction: CachedExtraction) => {
    results.set(chunkId, extraction);
    const said = statementsOf(extraction);
    for (const id of said.entities.keys()) entities.add(id);
    for (const id of said.relations.keys()) relations.add(id);
    progress.stats.entities_found = entities.size;
    progress.stats.relationships_found = relations.size;
  };

  let finished = 0;
  const pending = run.chunks.filter((chunk) => {
    const cached = known.get(chunk.id);
    const reuse =
      options.mode === 'retry_chunks' && chunk.extraction_status === 'completed' && cached?.content_hash === contentHash(chunk.content);
    if (reuse) {
      record(chunk.id, cached);
      finished++;
    }
    return !reuse;
  });
  progress.stats.chunks_processed = finished;
  const extractOptions = {
    enableGleaning: doc.options?.enable_gleaning ?? true,
    maxGleaning: doc.options?.max_gleaning ?? deps.config.ingest.maxGleaning,
    signal: options.signal,
    override: findPromptOverride(deps.config.promptsDir, 'extraction', { workspaceId: scope.workspaceId, model: run.llm.model }),
  };
  // Thousands of chunks start here at once: each one's synchronous start (cache key, prompt) gets its turn.
  let outage: unknown = null;
  await startInSlices(pending, async (chunk) => {
    try {
      const outcome = await withSpan(
        'ingest.extract_chunk',
        { chunk_id: chunk.id, chunk_index: chunk.index, tokens: chunk.tokens },
        async (span) => {
          const done = await extractWithCache(deps.stores.kv, scope, run.llm, chunk, extractOptions, known.get(chunk.id) ?? null);
          span?.set({ input_tokens: done.usage.input_tokens, output_tokens: done.usage.output_tokens, llm_calls: done.llm_calls });
          return done;
        },
      );
      chunk.extraction_status = 'completed';
      chunk.extraction_error = null;
      chunk.llm_model = outcome.extraction.llm_model;
      run.llmCalls += outcome.llm_calls;
      addUsage(run.usage, outcome.usage);
      record(chunk.id, outcome.extraction);
    } catch (err) {
      // A store or provider that cannot be reached (a pool time-out among them) is an outage of the run, not a
      // fault of the chunk: once the other chunks are done, the run goes back to the queue (tasks/queue.ts).
      if (isOutage(err)) {
        outage ??= err;
        return;
      }
      chunk.extraction_status = 'failed';
      chunk.extraction_error = err instanceof Error ? err.message : String(err);
      if (err instanceof Error && err.name === 'TimeoutError') (run.timedOut ??= new Set()).add(chunk.id);
    }
    progress.stats.chunks_processed = ++finished;
    await progress.within('extraction', finished / total);
  });
  if (outage !== null) throw outage;
  return results;
}
