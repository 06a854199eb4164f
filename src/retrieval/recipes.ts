/**
 * The six query modes as recipes over the same retrieval steps. Adding a mode means adding a row here,
 * never another branch in the retriever.
 */

export const QUERY_MODES = ['naive', 'local', 'global', 'hybrid', 'mix', 'bypass'] as const;
export type QueryMode = (typeof QUERY_MODES)[number];
export const DEFAULT_QUERY_MODE: QueryMode = 'hybrid';

export interface RetrievalRecipe {
  /** Ask the LLM for high- and low-level keywords first. */
  keywords: boolean;
  /** Search entity vectors with the low-level keywords. */
  entitySearch: 'low' | null;
  /** Search relationship vectors with the high-level keywords. */
  relationshipSearch: 'high' | null;
  /**
   * Search community reports with the high-level keywords and take the relationships of their best members, fused
   * by rank with those of relationship search (`relationshipSearch`), which runs alone while the workspace has no
   * communities.
   */
  communitySearch: boolean;
  /** Search chunk vectors with the query itself. */
  chunkVectorSearch: boolean;
  /** Entities bring their relationships and neighbours; relationships bring their endpoints. */
  graphExpansion: boolean;
  /**
   * How the chunks the selected entities and relationships cite are ranked: by how many of them cite each
   * chunk, or by the chunk's similarity to the question among the most cited (its vector scored by id).
   */
  graphChunkRanking: 'citations' | 'similarity';
  /**
   * With similarity ranking, the chunk after each cited one is ranked too: a record is cited where it is named,
   * and the text about it often continues into the next chunk. Not in mix, whose vector search already brings the
   * question's nearest chunks from the whole store (on the handbook: no passage more, answer words within 0.004).
   */
  followingChunks: boolean;
  /**
   * The best chunk that no longer fits whole is cut to the tokens left and kept last, so that the chunks fill
   * their budget (naive: its context is chunks alone, and the answer often lies in the next-ranked one).
   */
  cutLastChunk: boolean;
  /** How graph-derived chunks and vector chunks combine when both exist. */
  fuse: 'none' | 'rrf';
  /** No retrieval at all: the LLM answers alone. */
  llmOnly: boolean;
}

const none: RetrievalRecipe = {
  keywords: false,
  entitySearch: null,
  relationshipSearch: null,
  communitySearch: false,
  chunkVectorSearch: false,
  graphExpansion: false,
  graphChunkRanking: 'similarity',
  followingChunks: false,
  cutLastChunk: false,
  fuse: 'none',
  llmOnly: false,
};

export const RECIPES: Readonly<Record<QueryMode, RetrievalRecipe>> = {
  naive: { ...none, chunkVectorSearch: true, cutLastChunk: true },
  local: { ...none, keywords: true, entitySearch: 'low', graphExpansion: true, followingChunks: true },
  global: { ...none, keywords: true, relationshipSearch: 'high', communitySearch: true, graphExpansion: true, followingChunks: true },
  hybrid: {
    ...none,
    keywords: true,
    entitySearch: 'low',
    relationshipSearch: 'high',
    communitySearch: true,
    graphExpansion: true,
    followingChunks: true,
  },
  mix: {
    ...none,
    keywords: true,
    entitySearch: 'low',
    relationshipSearch: 'high',
    communitySearch: true,
    chunkVectorSearch: true,
    graphExpansion: true,
    fuse: 'rrf',
  },
  bypass: { ...none, llmOnly: true },
};

export function recipeOf(mode: QueryMode): RetrievalRecipe {
  return RECIPES[mode];
}
