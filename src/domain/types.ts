/** Records shared by every layer. Field names follow the API (snake_case) so presenters stay thin. */

export type DocumentStatus = 'processing' | 'completed' | 'failed';
export type DocumentType = 'text' | 'markdown' | 'json' | 'pdf';

export interface Scope {
  workspaceId: string;
  tenantId?: string;
}

export interface DocumentRecord {
  id: string;
  title: string;
  status: DocumentStatus;
  content_hash: string;
  /** Full extracted text; chunks point into it by char range. */
  content: string;
  document_type: DocumentType;
  file_path: string;
  file_size: number;
  source: string | null;
  metadata: Record<string, unknown>;
  chunk_count: number;
  entity_count: number;
  relationship_count: number;
  created_at: string;
  updated_at: string;
  processed_at: string | null;
  processing_time_ms: number | null;
  error: string | null;
  track_id: string | null;
  task_id: string | null;
  llm_model: string | null;
  embedding_model: string | null;
  page_count: number | null;
  pdf_id: string | null;
  /** Ingestion options kept so that reprocess and retry behave like the first run. */
  options: IngestOptions;
  /** 1 when ingested, one more at every content update; absent on documents stored before updates existed. */
  version?: number;
  /** How the model's extraction went (docs/api.md §4.1); absent until a run finished, and on older documents. */
  extraction?: DocumentExtraction | null;
}

/** A problem of a document's extraction a user should know of: a code and a sentence. */
export interface DocumentWarning {
  code: 'records_dropped' | 'output_truncated' | 'output_looped' | 'completion_marker_missing' | 'empty_output' | 'no_entities';
  message: string;
}

/** The extraction health of a document's chunks, summed (src/ingest/extract/health.ts). */
export interface DocumentExtraction {
  chunks: number;
  /** Chunks with at least one grounded record. */
  chunks_with_records: number;
  records_parsed: number;
  records_kept: number;
  records_dropped: number;
  /** Dropped records by reason: malformed, self_loop, not_in_text, placeholder, example. */
  dropped: Record<string, number>;
  /** Indexes of the chunks whose output was cut at the length limit, did not end with the completion marker, repeated itself, or timed out (at most 50 each). */
  truncated_chunks: number[];
  unmarked_chunks: number[];
  looping_chunks: number[];
  timed_out_chunks: number[];
  passes: number;
  empty_outputs: number;
  prompt_version: number | null;
  /** The extraction prompt override used (SERVICE_PROMPTS_DIR), if one was. */
  prompt_override: string | null;
  warnings: DocumentWarning[];
}

export interface IngestOptions {
  enable_gleaning: boolean;
  /** Absent: the service's max_gleaning setting when the document is processed. */
  max_gleaning?: number;
  use_llm_summarization: boolean;
}

export type ChunkExtractionStatus = 'pending' | 'completed' | 'failed';

export interface ChunkRecord {
  id: string;
  document_id: string;
  index: number;
  content: string;
  tokens: number;
  char_start: number;
  char_end: number;
  start_line: number;
  end_line: number;
  /** PDF pages the chunk spans (1-based); null for non-paged sources. */
  page_start: number | null;
  page_end: number | null;
  extraction_status: ChunkExtractionStatus;
  extraction_error: string | null;
  /** Entity ids and relationship ids this chunk contributed. */
  entity_ids: string[];
  relationship_ids: string[];
  llm_model: string | null;
  embedding_model: string | null;
  created_at: string;
}

export interface EntityRecord {
  /** UPPERCASE_UNDERSCORE normalised name. */
  id: string;
  name: string;
  entity_type: string;
  description: string;
  source_chunk_ids: string[];
  document_ids: string[];
  created_at: string;
  updated_at: string;
}

export interface RelationshipRecord {
  /** `${source}|${target}` with the pair in sorted order: relationships are undirected. */
  id: string;
  source: string;
  target: string;
  relation_type: string;
  keywords: string[];
  description: string;
  weight: number;
  source_chunk_ids: string[];
  document_ids: string[];
  created_at: string;
  updated_at: string;
}

export const TASK_STATUSES = ['pending', 'running', 'completed', 'failed', 'cancelled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** A count of nothing for every task status. */
export function noTasksByStatus(): Record<TaskStatus, number> {
  return Object.fromEntries(TASK_STATUSES.map((status) => [status, 0])) as Record<TaskStatus, number>;
}
export type StageStatus = 'pending' | 'running' | 'completed';
export const STAGES = ['chunking', 'extraction', 'merging', 'embedding'] as const;
export type StageName = (typeof STAGES)[number];

export interface TaskStats {
  chunks_processed: number;
  chunks_total: number;
  entities_found: number;
  relationships_found: number;
}

export interface TaskRecord {
  id: string;
  /** A document run, or a workspace's embedding rebuild (document_id empty). */
  type: 'document_processing' | 'rebuild_embeddings';
  status: TaskStatus;
  progress: number;
  document_id: string;
  /** What the worker must do: a full run, or only the chunks that failed. */
  mode: 'full' | 'retry_chunks';
  stages: Record<StageName, StageStatus>;
  stats: TaskStats;
  error: string | null;
  retry_of: string | null;
  created_at: string;
  started_at: string | null;
  updated_at: string;
  finished_at: string | null;
  /** Lease for multi-instance claiming; null when not claimed. */
  lease_owner: string | null;
  lease_expires_at: string | null;
  /** Runs that ended because a dependency (Qdrant, Neo4j, a provider) was unreachable, each put back in the queue. */
  attempts: number;
  /** A task put back after an outage is not claimed before this time (its backoff); null: at once. */
  not_before: string | null;
}

export type VectorKind = 'chunk' | 'entity' | 'relationship';

export interface VectorPoint {
  id: string;
  vector: number[];
  /** Documents the point belongs to; used by document filters and deletion. */
  document_ids: string[];
}

export interface VectorHit {
  id: string;
  score: number;
}

export interface ConversationRecord {
  id: string;
  title: string;
  mode: string;
  created_at: string;
  updated_at: string;
  message_count: number;
  /** The folder it is filed in, or null. */
  folder_id: string | null;
  /** Pinned and archived by its users (EdgeQuake's flags); neither changes what the chat does with it. */
  is_pinned: boolean;
  is_archived: boolean;
}

/** A named folder of conversations in a workspace (one level: folders do not nest). */
export interface FolderRecord {
  id: string;
  name: string;
  created_at: string;
  updated_at: string;
}

export interface MessageRecord {
  id: string;
  conversation_id: string;
  role: 'user' | 'assistant' | 'system';
  content: string;
  sources: unknown[];
  status: 'complete' | 'streaming' | 'failed';
  created_at: string;
}

export interface Page<T> {
  items: T[];
  total: number;
}
