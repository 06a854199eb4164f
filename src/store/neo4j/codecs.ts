import type {
  ChunkRecord,
  ConversationRecord,
  DocumentRecord,
  EntityRecord,
  FolderRecord,
  MessageRecord,
  RelationshipRecord,
  TaskRecord,
} from '../../domain/types';
import type { TaskTimes } from '../ports';
import { int, json, num, numOrNull, str, strOrNull, strings, timestamp } from './values';

/**
 * How each record field is stored as a Neo4j property. Nested objects become JSON strings (properties cannot
 * hold maps); integers are stored as integers; timestamps as UTC ISO strings; nulls are absent properties.
 */
/** `int?` fields are null when absent; `…-or-absent` fields (optional in the record type) are left out; an absent `flag` is false. */
type FieldKind =
  | 'string'
  | 'string?'
  | 'int'
  | 'int?'
  | 'int-or-absent'
  | 'number'
  | 'timestamp'
  | 'timestamp?'
  | 'json'
  | 'json-or-absent'
  | 'strings'
  | 'flag';
type Spec<T> = { [K in keyof T]-?: FieldKind };

export const DOCUMENT_FIELDS: Spec<DocumentRecord> = {
  id: 'string',
  title: 'string',
  status: 'string',
  content_hash: 'string',
  content: 'string',
  document_type: 'string',
  file_path: 'string',
  file_size: 'int',
  source: 'string?',
  metadata: 'json',
  chunk_count: 'int',
  entity_count: 'int',
  relationship_count: 'int',
  created_at: 'timestamp',
  updated_at: 'timestamp',
  processed_at: 'timestamp?',
  processing_time_ms: 'int?',
  error: 'string?',
  track_id: 'string?',
  task_id: 'string?',
  llm_model: 'string?',
  embedding_model: 'string?',
  page_count: 'int?',
  pdf_id: 'string?',
  options: 'json',
  version: 'int-or-absent',
  extraction: 'json-or-absent',
};

export const CHUNK_FIELDS: Spec<ChunkRecord> = {
  id: 'string',
  document_id: 'string',
  index: 'int',
  content: 'string',
  tokens: 'int',
  char_start: 'int',
  char_end: 'int',
  start_line: 'int',
  end_line: 'int',
  page_start: 'int?',
  page_end: 'int?',
  extraction_status: 'string',
  extraction_error: 'string?',
  entity_ids: 'strings',
  relationship_ids: 'strings',
  llm_model: 'string?',
  embedding_model: 'string?',
  created_at: 'timestamp',
};

export const ENTITY_FIELDS: Spec<EntityRecord> = {
  id: 'string',
  name: 'string',
  entity_type: 'string',
  description: 'string',
  source_chunk_ids: 'strings',
  document_ids: 'strings',
  created_at: 'timestamp',
  updated_at: 'timestamp',
};

/** Stored on the relationship itself; `source` and `target` are its end nodes. */
export const RELATIONSHIP_FIELDS: Spec<Omit<RelationshipRecord, 'source' | 'target'>> = {
  id: 'string',
  relation_type: 'string',
  keywords: 'strings',
  description: 'string',
  weight: 'number',
  source_chunk_ids: 'strings',
  document_ids: 'strings',
  created_at: 'timestamp',
  updated_at: 'timestamp',
};

export const TASK_FIELDS: Spec<TaskRecord> = {
  id: 'string',
  type: 'string',
  status: 'string',
  progress: 'int',
  document_id: 'string',
  mode: 'string',
  stages: 'json',
  stats: 'json',
  error: 'string?',
  retry_of: 'string?',
  created_at: 'timestamp',
  started_at: 'timestamp?',
  updated_at: 'timestamp',
  finished_at: 'timestamp?',
  lease_owner: 'string?',
  lease_expires_at: 'timestamp?',
  attempts: 'int',
  not_before: 'timestamp?',
};

/** The two timestamps of a task that throughput and latency figures read (tasks/finish-times). */
export const TASK_TIMES: Spec<TaskTimes> = { created_at: 'timestamp', finished_at: 'timestamp?' };

export const CONVERSATION_FIELDS: Spec<ConversationRecord> = {
  id: 'string',
  title: 'string',
  mode: 'string',
  created_at: 'timestamp',
  updated_at: 'timestamp',
  message_count: 'int',
  folder_id: 'string?',
  is_pinned: 'flag',
  is_archived: 'flag',
};

export const FOLDER_FIELDS: Spec<FolderRecord> = {
  id: 'string',
  name: 'string',
  created_at: 'timestamp',
  updated_at: 'timestamp',
};

export const MESSAGE_FIELDS: Spec<MessageRecord> = {
  id: 'string',
  conversation_id: 'string',
  role: 'string',
  content: 'string',
  sources: 'json',
  status: 'string',
  created_at: 'timestamp',
};

function encodeValue(kind: FieldKind, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (kind) {
    case 'int':
    case 'int?':
    case 'int-or-absent':
      return int(value as number);
    case 'timestamp':
    case 'timestamp?':
      return timestamp(value as string);
    case 'json':
    case 'json-or-absent':
      return JSON.stringify(value);
    case 'strings':
      return (value as unknown[]).map(String);
    default:
      return value;
  }
}

function decodeValue(kind: FieldKind, value: unknown): unknown {
  switch (kind) {
    case 'string':
    case 'timestamp':
      return str(value);
    case 'string?':
    case 'timestamp?':
      return strOrNull(value);
    case 'int':
    case 'number':
      return num(value);
    case 'int?':
      return numOrNull(value);
    case 'int-or-absent':
      return numOrNull(value) ?? undefined;
    case 'json':
      return json(value, null);
    case 'json-or-absent':
      return json(value, null) ?? undefined;
    case 'strings':
      return strings(value);
    case 'flag':
      return value === true;
  }
}

/** Properties of a whole record (absent fields become null, i.e. no property). */
export function encode<T extends object>(spec: Spec<T>, record: T): Record<string, unknown> {
  const props: Record<string, unknown> = {};
  for (const key of Object.keys(spec) as Array<keyof T>) {
    props[key as string] = encodeValue(spec[key], record[key]);
  }
  return props;
}

/**
 * Properties of a partial update: `undefined` means untouched, `null` removes the property, and the fields
 * named in `immutable` (always `id`) are never patched.
 */
export function encodePatch<T extends object>(
  spec: Spec<T>,
  patch: Partial<T>,
  immutable: ReadonlyArray<keyof T> = [],
): Record<string, unknown> {
  const props: Record<string, unknown> = {};
  for (const key of Object.keys(patch) as Array<keyof T>) {
    const value = patch[key];
    if (value === undefined || key === 'id' || immutable.includes(key) || !(key in spec)) continue;
    props[key as string] = encodeValue(spec[key], value);
  }
  return props;
}

export function decode<T extends object>(spec: Spec<T>, props: unknown): T {
  const source = (props ?? {}) as Record<string, unknown>;
  const record: Record<string, unknown> = {};
  for (const key of Object.keys(spec) as Array<keyof T>) {
    record[key as string] = decodeValue(spec[key], source[key as string]);
  }
  return record as T;
}

export function decodeRelationship(props: unknown, source: unknown, target: unknown): RelationshipRecord {
  return { ...decode(RELATIONSHIP_FIELDS, props), source: str(source), target: str(target) };
}
