import type { EntityRecord, RelationshipRecord, VectorPoint } from '../domain/types';
import { entityText, relationshipText } from '../records/embed-text';
import type { GraphDeps } from './deps';

/** Vectors for records changed by an edit, embedded with the same texts as ingestion uses. */

const BATCH = 64;

async function embedAll(deps: GraphDeps, texts: string[]): Promise<number[][]> {
  if (texts.length === 0) return [];
  const provider = deps.providers.embedding();
  const out: number[][] = [];
  for (let i = 0; i < texts.length; i += BATCH) out.push(...(await provider.embed(texts.slice(i, i + BATCH))));
  return out;
}

/** The caller writes the points once every other check has passed, so a failed embedding writes nothing. */
export function embedEntities(deps: GraphDeps, entities: EntityRecord[]): Promise<VectorPoint[]> {
  return embedPoints(deps, entities, entityText);
}

export function embedRelationships(deps: GraphDeps, relationships: RelationshipRecord[]): Promise<VectorPoint[]> {
  return embedPoints(deps, relationships, relationshipText);
}

async function embedPoints<R extends EntityRecord | RelationshipRecord>(
  deps: GraphDeps,
  records: R[],
  textOf: (record: R) => string,
): Promise<VectorPoint[]> {
  const vectors = await embedAll(deps, records.map(textOf));
  return records.map((r, i) => ({ id: r.id, vector: vectors[i], document_ids: r.document_ids }));
}
