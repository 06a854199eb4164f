import type { Scope } from '../../domain/types';
import type { IngestDeps } from '../deps';
import { readExtractions } from '../extract/cache';
import type { Contribution } from './merge';
import { summaryPolicy } from './summary';
import { mergeIntoGraph } from './merge-stage';
import { writeChunkLinks } from './chunk-links';

/**
 * Merges documents again from their cached extractions (no LLM extraction), so that their records follow the
 * current aliases: after an alias was split off its survivor, the chunks naming it give it back its own entity.
 * Chunk links and document counts follow (./chunk-links.ts).
 */
export async function remergeDocuments(deps: IngestDeps, scope: Scope, documentIds: string[], cause: string): Promise<void> {
  const { stores } = deps;
  for (const documentId of documentIds) {
    const doc = await stores.documents.get(scope, documentId);
    if (!doc || doc.status !== 'completed') continue;
    const chunks = await stores.chunks.listByDocument(scope, documentId);
    const extractions = await readExtractions(
      stores.kv,
      scope,
      chunks.map((c) => c.id),
    );
    const contributions: Contribution[] = chunks.flatMap((c) => {
      const extraction = extractions.get(c.id);
      return extraction ? [{ chunkId: c.id, extraction }] : [];
    });
    await mergeIntoGraph(deps, scope, documentId, contributions, {
      policy: summaryPolicy(deps, doc.options?.use_llm_summarization ?? true),
      cause,
    });
    await writeChunkLinks(deps, scope, documentId, chunks, contributions);
  }
}
