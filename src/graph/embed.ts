import type { EntityRecord, RelationshipRecord, Scope, VectorPoint } from '../domain/types';
import { entityEmbeddingText, relationshipEmbeddingText } from './combine';
import type { GraphDeps } from './deps';

const BATCH = 64;

async function embedAll(deps: GraphDeps, texts: string[]): Promise<number[][]> {
  if (texts.length === 0) return [];
  const provider = deps.providers.embedding();
  const out: number[][] = [];
  for (let i = 0; i < texts.length; i += BATCH) out.push(...(await provider.embed(texts.slice(i, i + BATCH))));
  return out;
}

/** Vector points for entities after an edit (the caller writes them once every other check has passed). */
export async function embedEntities(deps: GraphDeps, entities: EntityRecord[]): Promise<VectorPoint[]> {
  const vectors = await embedAll(deps, entities.map(entityEmbeddingText));
  return entities.map((e, i) => ({ id: e.id, vector: vectors[i], document_ids: e.document_ids }));
}

/** `known` supplies endpoint names of entities not stored yet (a rename's new record). */
export async function embedRelationships(
  deps: GraphDeps,
  scope: Scope,
  relationships: RelationshipRecord[],
  known: EntityRecord[] = [],
): Promise<VectorPoint[]> {
  if (relationships.length === 0) return [];
  const names = new Map(known.map((e) => [e.id, e.name]));
  const unknown = [...new Set(relationships.flatMap((r) => [r.source, r.target]))].filter((id) => !names.has(id));
  for (const e of await deps.stores.graph.getEntities(scope, unknown)) names.set(e.id, e.name);
  const vectors = await embedAll(deps, relationships.map((r) => relationshipEmbeddingText(r, names)));
  return relationships.map((r, i) => ({ id: r.id, vector: vectors[i], document_ids: r.document_ids }));
}
