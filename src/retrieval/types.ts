import type { CommunityRecord } from '../domain/communities';
import type { ChunkRecord, EntityRecord, RelationshipRecord, Scope } from '../domain/types';
import type { ChatMessage, LlmProvider } from '../llm/ports';
import type { QueryMode } from './recipes';

/** Restricts retrieval to documents by creation date (inclusive ISO dates) and title terms (OR, case-insensitive). */
export interface DocumentFilter {
  date_from?: string;
  date_to?: string;
  document_pattern?: string;
}

export interface RetrievalLimits {
  maxEntities: number;
  maxRelationships: number;
  maxChunks: number;
}

export const DEFAULT_LIMITS: RetrievalLimits = { maxEntities: 20, maxRelationships: 20, maxChunks: 20 };
export const LIMIT_BOUNDS = { min: 1, max: 200 } as const;

/** Context tokens per section and in total (cl100k). */
export interface TokenBudget {
  entities: number;
  relationships: number;
  chunks: number;
  total: number;
}

/**
 * Vector hits below this cosine similarity are noise, not evidence (LightRAG's default threshold): without
 * it every query would pull the top k of the store however unrelated.
 */
export const DEFAULT_MIN_SIMILARITY = 0.2;

/**
 * A hit must also reach this share of the way from the model's floor to the query's best hit: trained models
 * score related and unrelated texts alike well above 0.2 (e5: 0.75–0.9), so a floor alone keeps everything.
 */
export const RELATIVE_SIMILARITY = 0.3;

/** Chunks may fill whatever entities and relationships leave of the total (all of it in `naive`). */
export const DEFAULT_BUDGET: TokenBudget = { entities: 4000, relationships: 4000, chunks: 12000, total: 12000 };

export interface RetrievalRequest {
  scope: Scope;
  query: string;
  mode: QueryMode;
  /** Earlier turns; they inform keyword extraction. */
  history: ChatMessage[];
  filter: DocumentFilter | null;
  limits: RetrievalLimits;
  rerank: { enabled: boolean; topK: number };
  /** The model that extracts keywords (the same one that answers). */
  llm: LlmProvider;
  signal?: AbortSignal;
  budget?: TokenBudget;
  /** Defaults to DEFAULT_MIN_SIMILARITY. */
  minSimilarity?: number;
}

export interface Keywords {
  high: string[];
  low: string[];
  /**
   * 'llm' when the model's JSON was used, 'recovered' when it was cut short and its complete keywords were used,
   * 'fallback' when terms were taken from the query.
   */
  origin: 'llm' | 'recovered' | 'fallback' | 'none';
}

export interface ScoredEntity {
  record: EntityRecord;
  score: number;
  degree: number;
}

export interface ScoredRelationship {
  record: RelationshipRecord;
  score: number;
}

export interface ScoredCommunity {
  record: CommunityRecord;
  score: number;
}

export interface ScoredChunk {
  record: ChunkRecord;
  score: number;
  rerankScore?: number;
  /** Its document's title and file path, when read with the chunk. */
  origin?: { title: string; file_path: string };
}

export interface ChunkSource {
  source_type: 'chunk';
  id: string;
  score: number;
  rerank_score?: number;
  snippet: string;
  reference_id: number;
  document_id: string;
  document_title: string;
  file_path: string;
  start_line: number;
  end_line: number;
  chunk_index: number;
}

export interface EntitySource {
  source_type: 'entity';
  id: string;
  /** The entity's name as written (the id is its normalised form). */
  name: string;
  score: number;
  snippet: string;
  reference_id: number;
  entity_type: string;
  degree: number;
}

export type QuerySource = ChunkSource | EntitySource;

export interface RetrievalTimings {
  embedding_ms: number;
  keywords_ms: number;
  rerank_ms: number;
  /** Everything before generation, keywords, embedding and reranking included. */
  retrieval_ms: number;
}

export interface RetrievedContext {
  mode: QueryMode;
  keywords: Keywords;
  entities: ScoredEntity[];
  relationships: ScoredRelationship[];
  chunks: ScoredChunk[];
  /** Community reports used (global, hybrid, mix once the workspace has communities). */
  communities: ScoredCommunity[];
  /**
   * Where the global part came from: community reports, or relationship search while the workspace has no
   * communities (or a document filter applies); null in modes without a global part.
   */
  globalSource: 'communities' | 'relationships' | null;
  sources: QuerySource[];
  /** The context section of the prompt, with `[n]` reference ids; '' when nothing was retrieved. */
  contextText: string;
  reranked: boolean;
  /** Tokens the keyword call used (input + output). */
  keywordTokens: number;
  timings: RetrievalTimings;
  /** Counts before budgets and reranking, for debug output. */
  candidates: { entities: number; relationships: number; chunks: number };
}
