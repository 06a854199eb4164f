import type { EntityRecord, RelationshipRecord, Scope, VectorKind, VectorPoint } from '../domain/types';
import { entityText, relationshipText } from '../records/embed-text';
import type { GraphDeps } from './deps';

/** Vectors for records changed by an edit, embedded with the same texts as ingestion uses. */

const BATCH = 64;

async function embedAll(
  deps: GraphDeps,
  scope: Scope,
  kind: VectorKind,
  records: Array<{ id: string; text: string }>,
): Promise<number[][]> {
  if (records.length === 0) return [];
  if (deps.embedRecords) return deps.embedRecords(scope, kind, records);
  const texts = records.map((r) => r.text);
  const provider = deps.providers.embedding();
  const out: number[][] = [];
  for (let i = 0; i < texts.length; i += BATCH) out.push(...(await provider.embed(texts.slice(i, i + BATCH))));
  return out;
}

/** The caller writes the points once every other check has passed, so a failed embedding writes nothing. */
export function embedEntities(deps: GraphDeps, scope: Scope, entities: EntityRecord[]): Promise<VectorPoint[]> {
  return embedPoints(deps, scope, 'entity', entities, entityText);
}

export function embedRelationships(deps: GraphDeps, scope: Scope, relationships: RelationshipRecord[]): Promise<VectorPoint[]> {
  return embedPoints(deps, scope, 'relationship', relationships, relationshipText);
}

async function embedPoints<R extends EntityRecord | RelationshipRecord>(
  deps: GraphDeps,
  scope: Scope,
  kind: VectorKind,
  records: R[],
  textOf: (record: R) => string,
): Promise<VectorPoint[]> {
  const vectors = await embedAll(
    deps,
    scope,
    kind,
    records.map((r) => ({ id: r.id, text: textOf(r) })),
  );
  return records.map((r, i) => ({ id: r.id, vector: vectors[i], document_ids: r.document_ids }));
}
