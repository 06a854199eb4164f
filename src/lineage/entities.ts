import { normalizeEntityId } from '../domain/ids';
import type { ChunkRecord, DocumentRecord, EntityRecord, Scope } from '../domain/types';
import { mergeHistoryOf, resolveEntityAlias } from '../graph/aliases';
import type { Stores } from '../store/ports';
import { type CachedExtraction, extractedMentions, extractionsOf } from './cache';
import { lineageNotFound } from './errors';
import { LineIndex, chunkOffset, entityNames, mentionSpan } from '../domain/text';

interface EntitySources {
  entity: EntityRecord;
  /** Source chunks grouped by document, in the entity's document order; documents gone since are skipped. */
  groups: Array<{ document: DocumentRecord; chunks: ChunkRecord[] }>;
  extractions: Map<string, CachedExtraction>;
  /** The entity's id and every id it absorbed by merge or rename. */
  ids: Set<string>;
}

async function loadSources(stores: Stores, scope: Scope, entity: EntityRecord): Promise<EntitySources> {
  const [chunks, extractions, history] = await Promise.all([
    stores.chunks.getMany(scope, entity.source_chunk_ids),
    extractionsOf(stores.kv, scope, entity.source_chunk_ids),
    mergeHistoryOf(stores.kv, scope, entity.id),
  ]);
  const groups: EntitySources['groups'] = [];
  const byDocument = new Map<string, ChunkRecord[]>();
  for (const chunk of chunks) {
    const list = byDocument.get(chunk.document_id) ?? [];
    list.push(chunk);
    byDocument.set(chunk.document_id, list);
  }
  const order = [...new Set([...entity.document_ids, ...byDocument.keys()])];
  for (const documentId of order) {
    const own = byDocument.get(documentId);
    const document = own ? await stores.documents.get(scope, documentId) : null;
    if (own && document) groups.push({ document, chunks: own.sort((a, b) => a.index - b.index) });
  }
  const ids = new Set([entity.id, ...history.flatMap((h) => h.merged_from)]);
  return { entity, groups, extractions, ids };
}

function earliest(dates: Array<string | undefined>): string | null {
  const known = dates.filter((d): d is string => Boolean(d)).sort();
  return known[0] ?? null;
}

/** The sentences of a chunk naming the entity, with their lines in the document; the whole chunk otherwise. */
function locateMention(document: DocumentRecord, lines: LineIndex, chunk: ChunkRecord, names: string[]) {
  const offset = chunkOffset(document.content, chunk);
  const span = mentionSpan(chunk.content, names);
  if (!span) {
    const whole = offset === null ? null : lines.linesOf(offset, offset + chunk.content.length);
    return {
      source_text: chunk.content,
      start_line: whole?.start_line ?? chunk.start_line,
      end_line: whole?.end_line ?? chunk.end_line,
    };
  }
  const located = offset === null ? null : lines.linesOf(offset + span.start, offset + span.end);
  return {
    source_text: chunk.content.slice(span.start, span.end),
    start_line: located?.start_line ?? null,
    end_line: located?.end_line ?? null,
  };
}

async function requireEntity(stores: Stores, scope: Scope, rawId: string, followAliases: boolean): Promise<EntityRecord> {
  let id = normalizeEntityId(rawId);
  if (id && followAliases) id = await resolveEntityAlias(stores.kv, scope, id);
  const entity = id ? await stores.graph.getEntity(scope, id) : null;
  if (!entity) throw lineageNotFound(`entity '${id || rawId}' does not exist in workspace '${scope.workspaceId}'`);
  return entity;
}

/** Entity provenance (docs/api.md §4.10): the passages it was extracted from, and the entities related to it. */
export async function entityProvenance(stores: Stores, scope: Scope, rawId: string) {
  const entity = await requireEntity(stores, scope, rawId, false);
  const { groups, extractions } = await loadSources(stores, scope, entity);
  const names = entityNames(entity);
  const relationships = await stores.graph.relationshipsOf(scope, [entity.id]);
  const others = await stores.graph.getEntities(
    scope,
    relationships.map((r) => (r.source === entity.id ? r.target : r.source)),
  );
  const byId = new Map(others.map((e) => [e.id, e]));
  const documents = new Set(entity.document_ids);
  return {
    entity_id: entity.id,
    entity_name: entity.name,
    entity_type: entity.entity_type,
    description: entity.description,
    sources: groups.map(({ document, chunks }) => {
      const lines = new LineIndex(document.content);
      return {
        document_id: document.id,
        document_name: document.title,
        chunks: chunks.map((chunk) => ({ chunk_id: chunk.id, ...locateMention(document, lines, chunk, names) })),
        first_extracted_at: earliest(chunks.map((c) => extractions.get(c.id)?.created_at)),
      };
    }),
    total_extraction_count: groups.reduce((n, g) => n + g.chunks.length, 0),
    related_entities: relationships.flatMap((r) => {
      const other = byId.get(r.source === entity.id ? r.target : r.source);
      if (!other) return [];
      return [
        {
          entity_id: other.id,
          entity_name: other.name,
          entity_type: other.entity_type,
          relationship_id: r.id,
          relationship_type: r.relation_type,
          shared_documents: other.document_ids.filter((id) => documents.has(id)).length,
        },
      ];
    }),
  };
}

/** Confidence of a source: 1 when the chunk's own extraction named the entity, 0.5 when it came by a merge. */
const DIRECT = 1;
const THROUGH_MERGE = 0.5;

/**
 * Entity lineage: one object with the fields of both documented shapes (`source_documents`/`description_versions`
 * and `entity`/`sources`/`merge_history`). A name merged or renamed away leads to the entity that absorbed it.
 */
export async function entityLineage(stores: Stores, scope: Scope, entityName: string) {
  const entity = await requireEntity(stores, scope, entityName, true);
  const { groups, extractions, ids } = await loadSources(stores, scope, entity);
  const history = await mergeHistoryOf(stores.kv, scope, entity.id);
  const chunks = groups.flatMap((g) => g.chunks.map((chunk) => ({ chunk, document: g.document })));
  const versions = chunks.flatMap(({ chunk, document }) => {
    const cached = extractions.get(chunk.id);
    return extractedMentions(cached, ids).map((mention) => ({
      description: mention.description,
      name: mention.name,
      entity_type: mention.type,
      chunk_id: chunk.id,
      document_id: document.id,
      extracted_at: cached?.created_at ?? null,
    }));
  });
  versions.sort((a, b) => (a.extracted_at ?? '').localeCompare(b.extracted_at ?? ''));
  return {
    entity_name: entity.name,
    entity_type: entity.entity_type,
    source_count: chunks.length,
    source_documents: groups.map(({ document, chunks: own }) => ({
      document_id: document.id,
      document_title: document.title,
      chunk_ids: own.map((c) => c.id),
      line_ranges: own.map((c) => ({ chunk_id: c.id, start_line: c.start_line, end_line: c.end_line })),
    })),
    description_versions: versions,
    entity: { id: entity.id, name: entity.name, type: entity.entity_type, description: entity.description },
    sources: chunks.map(({ chunk, document }) => {
      const cached = extractions.get(chunk.id);
      const direct =
        (cached?.entities ?? []).some((e) => e.id === entity.id) ||
        (cached?.relations ?? []).some((r) => r.source === entity.id || r.target === entity.id);
      return {
        document_id: document.id,
        document_title: document.title,
        chunk_id: chunk.id,
        chunk_index: chunk.index,
        extraction_date: cached?.created_at ?? chunk.created_at,
        confidence: direct ? DIRECT : THROUGH_MERGE,
      };
    }),
    merge_history: history,
  };
}
