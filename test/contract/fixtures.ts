import { randomUUID } from 'node:crypto';
import { relationshipId } from '../../src/domain/ids';
import type {
  ChunkRecord,
  ConversationRecord,
  DocumentRecord,
  EntityRecord,
  FolderRecord,
  MessageRecord,
  RelationshipRecord,
  TaskRecord,
} from '../../src/domain/types';

/** Deterministic PRNG (mulberry32): random graphs and vectors that are the same on every run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Cosine similarity computed directly: the reference the vector stores' scores are checked against. */
export function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return dot / Math.sqrt(na * nb);
}

export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

const BASE = Date.parse('2024-03-01T00:00:00.000Z');

/** An ISO timestamp `minutes` after a fixed instant. */
export function at(minutes: number): string {
  return new Date(BASE + minutes * 60_000).toISOString();
}

export function makeDocument(overrides: Partial<DocumentRecord> = {}): DocumentRecord {
  const id = overrides.id ?? `doc-${randomUUID()}`;
  return {
    id,
    title: `Document ${id}`,
    status: 'completed',
    content_hash: `sha256:${id}`,
    content: 'Alice met Bob in Paris.',
    document_type: 'text',
    file_path: `${id}.txt`,
    file_size: 23,
    source: null,
    metadata: { tags: ['a', 'b'], nested: { level: 1 } },
    chunk_count: 1,
    entity_count: 0,
    relationship_count: 0,
    created_at: at(0),
    updated_at: at(0),
    processed_at: null,
    processing_time_ms: null,
    error: null,
    track_id: null,
    task_id: null,
    llm_model: null,
    embedding_model: null,
    page_count: null,
    pdf_id: null,
    options: { enable_gleaning: true, max_gleaning: 1, use_llm_summarization: false },
    ...overrides,
  };
}

export function makeChunk(documentId: string, index: number, overrides: Partial<ChunkRecord> = {}): ChunkRecord {
  return {
    id: `${documentId}-chunk-${index}`,
    document_id: documentId,
    index,
    content: `chunk ${index} of ${documentId}`,
    tokens: 5,
    char_start: index * 100,
    char_end: index * 100 + 99,
    start_line: index * 3 + 1,
    end_line: index * 3 + 3,
    page_start: null,
    page_end: null,
    extraction_status: 'completed',
    extraction_error: null,
    entity_ids: ['ALICE'],
    relationship_ids: ['ALICE|BOB'],
    llm_model: null,
    embedding_model: null,
    created_at: at(index),
    ...overrides,
  };
}

export function makeEntity(id: string, overrides: Partial<EntityRecord> = {}): EntityRecord {
  return {
    id,
    name: id.replace(/_/g, ' '),
    entity_type: 'PERSON',
    description: `About ${id}`,
    source_chunk_ids: ['doc-1-chunk-0'],
    document_ids: ['doc-1'],
    created_at: at(0),
    updated_at: at(0),
    ...overrides,
  };
}

export function makeRelationship(a: string, b: string, overrides: Partial<RelationshipRecord> = {}): RelationshipRecord {
  const [id, source, target] = relationshipId(a, b);
  return {
    id,
    source,
    target,
    relation_type: 'RELATED_TO',
    keywords: ['knows'],
    description: `${source} and ${target}`,
    weight: 1,
    source_chunk_ids: ['doc-1-chunk-0'],
    document_ids: ['doc-1'],
    created_at: at(0),
    updated_at: at(0),
    ...overrides,
  };
}

export function makeTask(overrides: Partial<TaskRecord> = {}): TaskRecord {
  return {
    id: `task-${randomUUID()}`,
    type: 'document_processing',
    status: 'pending',
    progress: 0,
    document_id: `doc-${randomUUID()}`,
    mode: 'full',
    stages: { chunking: 'pending', extraction: 'pending', merging: 'pending', embedding: 'pending' },
    stats: { chunks_processed: 0, chunks_total: 0, entities_found: 0, relationships_found: 0 },
    error: null,
    retry_of: null,
    created_at: at(0),
    started_at: null,
    updated_at: at(0),
    finished_at: null,
    lease_owner: null,
    lease_expires_at: null,
    attempts: 0,
    not_before: null,
    ...overrides,
  };
}

export function makeConversation(overrides: Partial<ConversationRecord> = {}): ConversationRecord {
  return {
    id: `conv-${randomUUID()}`,
    title: 'A conversation',
    mode: 'hybrid',
    created_at: at(0),
    updated_at: at(0),
    message_count: 0,
    folder_id: null,
    is_pinned: false,
    is_archived: false,
    ...overrides,
  };
}

export function makeFolder(overrides: Partial<FolderRecord> = {}): FolderRecord {
  return { id: `folder-${randomUUID()}`, name: 'A folder', created_at: at(0), updated_at: at(0), ...overrides };
}

export function makeMessage(conversationId: string, overrides: Partial<MessageRecord> = {}): MessageRecord {
  return {
    id: `msg-${randomUUID()}`,
    conversation_id: conversationId,
    role: 'user',
    content: 'Who is Alice?',
    sources: [{ document_id: 'doc-1', chunks: ['doc-1-chunk-0'] }],
    status: 'complete',
    created_at: at(0),
    ...overrides,
  };
}
