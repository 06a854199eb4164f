import { isAbortError, throwIfAborted } from '../domain/abort';
import type { LlmCache } from '../llm/cache/responses';
import { embedOrUnavailable } from '../llm/embed-or-unavailable';
import type { EmbeddingProvider } from '../llm/ports';
import type { Stores } from '../store/ports';
import { applyTokenBudget } from './budget';
import { recipeOf, type RetrievalRecipe } from './recipes';
import type { Reranker } from './rerank';
import { presentContext } from './sources';
import { chunksOfSelection, fuseByRank, fuseChunks } from './steps/chunks';
import { interleave, selectFromGraph } from './steps/expand';
import { resolveAllowedDocuments } from './steps/filter';
import { extractKeywords } from './steps/keywords';
import { relationshipsOfCommunities, reportsWithin, searchCommunities } from './steps/communities';
import { searchChunks, searchEntities, searchRelationships, type SearchScope } from './steps/search';
import {
  DEFAULT_BUDGET,
  DEFAULT_MIN_SIMILARITY,
  RELATIVE_SIMILARITY,
  type Keywords,
  type RetrievalRequest,
  type RetrievalTimings,
  type RetrievedContext,
  type ScoredChunk,
  type ScoredCommunity,
  type ScoredRelationship,
} from './types';
import { withSpan } from '../llm/tracing';
import type { Logger } from '../logger';

export interface RetrieverDeps {
  stores: Stores;
  embedder: EmbeddingProvider;
  reranker: Reranker | null;
  /** The runtime's LLM response cache (keyword answers). */
  llmCache: LlmCache;
  /** Told when the model's keyword answer was cut short or unusable. */
  log?: Pick<Logger, 'warn'>;
}

const NO_KEYWORDS: Keywords = { high: [], low: [], origin: 'none' };

/**
 * Runs a mode's recipe: document filter -> keywords -> one embedding call -> vector searches -> graph
 * expansion -> supporting chunks (fused with vector chunks in mix) -> rerank -> token budgets -> sources and
 * context text. The signal is checked between steps and passed to every call that takes one.
 */
export async function retrieve(deps: RetrieverDeps, req: RetrievalRequest): Promise<RetrievedContext> {
  const started = performance.now();
  const recipe = recipeOf(req.mode);
  const timings: RetrievalTimings = { embedding_ms: 0, keywords_ms: 0, rerank_ms: 0, retrieval_ms: 0 };
  const result: RetrievedContext = {
    mode: req.mode,
    keywords: NO_KEYWORDS,
    entities: [],
    relationships: [],
    chunks: [],
    communities: [],
    globalSource: null,
    sources: [],
    contextText: '',
    reranked: false,
    keywordTokens: 0,
    timings,
    candidates: { entities: 0, relationships: 0, chunks: 0 },
  };
  const finish = () => {
    timings.retrieval_ms = performance.now() - started;
    return result;
  };
  throwIfAborted(req.signal);
  if (recipe.llmOnly) return finish();

  const { stores } = deps;
  const allowed = await resolveAllowedDocuments(stores.documents, req.scope, req.filter);
  if (allowed && allowed.size === 0) return finish();

  if (recipe.keywords) {
    const t = performance.now();
    const llm = deps.llmCache.wrap(req.llm, stores.kv, req.scope, { followGraph: true });
    const extracted = await withSpan('query.keywords', {}, async (span) => {
      const found = await extractKeywords(llm, req.query, req.history, req.signal);
      span?.set({ origin: found.keywords.origin, high_level: found.keywords.high.length, low_level: found.keywords.low.length });
      return found;
    });
    timings.keywords_ms = performance.now() - t;
    if (extracted.keywords.origin === 'fallback' || extracted.keywords.origin === 'recovered') {
      deps.log?.warn(
        { workspace_id: req.scope.workspaceId, mode: req.mode, model: req.llm.model, origin: extracted.keywords.origin },
        extracted.keywords.origin === 'recovered'
          ? "the model's keyword JSON was cut short: its complete keywords are used"
          : "the model's keyword answer had no usable JSON: the question's own terms are used",
      );
    }
    result.keywords = extracted.keywords;
    result.keywordTokens = extracted.tokens;
  }
  throwIfAborted(req.signal);

  const t = performance.now();
  const floor = similarityFloor(deps.embedder, req.minSimilarity, req.signal);
  // Awaited below; an abort that the query's embedding reports first must not go unhandled.
  floor.catch(() => undefined);
  const vectors = await withSpan('query.embed', {}, () => embedQueries(deps.embedder, recipe, req.query, result.keywords, req.signal));
  const similarTo = (r: RetrievalRecipe, question: number[] | null) => (r.graphChunkRanking === 'similarity' ? question : null);
  timings.embedding_ms = performance.now() - t;
  throwIfAborted(req.signal);

  const { scope, limits } = req;
  const minScore = await floor;
  // A cut-off the request gave is taken as it is; the model's floor is tightened towards the query's best hits.
  const search = { stores, scope, allowed, minScore, relative: req.minSimilarity === undefined ? RELATIVE_SIMILARITY : 0 };
  // Community reports for the global part, beside relationship search; that alone while there are none (or a document filter applies).
  const communities =
    recipe.communitySearch && !allowed ? await searchCommunities(stores, scope, vectors.relationship, result.keywords, minScore) : null;
  if (recipe.relationshipSearch) result.globalSource = communities ? 'communities' : 'relationships';
  // Expansion's reads come back with the searches when the recipe expands (one round trip each on Neo4j).
  const expands = recipe.graphExpansion;
  const [entitySearch, relationshipSearch, vectorChunks] = await withSpan('query.vector_search', {}, async (span) => {
    const hits = await Promise.all([
      vectors.entity
        ? searchEntities(search, vectors.entity, limits.maxEntities, expands ? { keep: limits.maxRelationships } : null)
        : null,
      communities
        ? globalFromBoth(search, communities, vectors.relationship, limits.maxRelationships)
        : vectors.relationship
          ? searchRelationships(search, vectors.relationship, limits.maxRelationships, expands ? { keep: limits.maxEntities } : null)
          : null,
      vectors.question && recipe.chunkVectorSearch ? searchChunks(search, vectors.question, limits.maxChunks) : [],
    ]);
    span?.set({ entities: hits[0]?.hits.length ?? 0, relationships: hits[1]?.hits.length ?? 0, chunks: hits[2].length });
    return hits;
  });
  result.communities = communities ?? [];
  throwIfAborted(req.signal);

  const { selection, graphChunks } = await withSpan('query.graph_expansion', {}, async (span) => {
    const selected = await selectFromGraph(
      stores,
      scope,
      recipe,
      entitySearch?.hits ?? [],
      relationshipSearch?.hits ?? [],
      limits,
      allowed,
      { surroundings: entitySearch?.surroundings, ends: relationshipSearch?.ends },
    );
    const cited =
      selected.entities.length || selected.relationships.length
        ? await chunksOfSelection(
            stores,
            scope,
            selected,
            limits.maxChunks,
            allowed,
            similarTo(recipe, vectors.question),
            recipe.followingChunks,
          )
        : [];
    span?.set({ entities: selected.entities.length, relationships: selected.relationships.length, chunks: cited.length });
    return { selection: selected, graphChunks: cited };
  });
  const candidates =
    recipe.fuse === 'rrf'
      ? fuseChunks([graphChunks, vectorChunks], limits.maxChunks)
      : interleave(graphChunks, vectorChunks, (c) => c.record.id, limits.maxChunks);
  result.candidates = {
    entities: selection.entities.length,
    relationships: selection.relationships.length,
    chunks: candidates.length,
  };
  throwIfAborted(req.signal);

  let chunks = candidates;
  if (req.rerank.enabled && deps.reranker && candidates.length > 0) {
    const r = performance.now();
    const reranker = deps.reranker;
    chunks = await withSpan('query.rerank', { reranker: reranker.name, candidates: candidates.length }, () =>
      rerankChunks(reranker, req.query, candidates, req.rerank.topK, req.signal),
    );
    timings.rerank_ms = performance.now() - r;
    result.reranked = true;
  }

  // Community reports take up to a quarter of the relationship budget, out of the total: the cited chunks need the rest.
  const budget = req.budget ?? DEFAULT_BUDGET;
  const reports = reportsWithin(result.communities, Math.min(budget.relationships, budget.total) / 4);
  result.communities = reports.kept;
  const budgeted = applyTokenBudget(
    selection.entities,
    selection.relationships,
    chunks,
    { ...budget, total: Math.max(0, budget.total - reports.tokens) },
    recipe.cutLastChunk,
  );
  result.entities = budgeted.entities;
  result.relationships = budgeted.relationships;
  result.chunks = budgeted.chunks;
  const presented = await presentContext(
    stores,
    scope,
    budgeted.entities,
    budgeted.relationships,
    budgeted.chunks,
    result.reranked,
    result.communities,
  );
  result.sources = presented.sources;
  result.contextText = presented.contextText;
  return finish();
}

/**
 * The cosine below which a hit is noise: the request's, else the catalog's for the model, else what unrelated
 * texts reach with the model (measured once), else the default.
 */
async function similarityFloor(embedder: EmbeddingProvider, requested: number | undefined, signal?: AbortSignal): Promise<number> {
  if (requested !== undefined) return requested;
  if (embedder.similarityThreshold !== undefined) return embedder.similarityThreshold;
  if (!embedder.unrelatedSimilarity) return DEFAULT_MIN_SIMILARITY;
  try {
    return await embedder.unrelatedSimilarity(signal);
  } catch (err) {
    if (isAbortError(err)) throw err;
    // The query's own embedding reports the failing model.
    return DEFAULT_MIN_SIMILARITY;
  }
}

/**
 * The global part once there are communities: the relationships of the reports' best members and those nearest
 * the high-level keywords, fused by reciprocal rank (the reports alone miss the relationship that answers when
 * it lies outside their most connected members). Expansion reads the end points of both.
 */
async function globalFromBoth(
  search: SearchScope,
  communities: ScoredCommunity[],
  vector: number[] | null,
  limit: number,
): Promise<{ hits: ScoredRelationship[]; ends: null }> {
  const [members, nearest] = await Promise.all([
    relationshipsOfCommunities(search.stores, search.scope, communities, limit, vector),
    vector ? searchRelationships(search, vector, limit).then((r) => r.hits) : [],
  ]);
  return { hits: fuseByRank([nearest, members], (r) => r.record.id, limit), ends: null };
}

interface QueryVectors {
  /** The question itself: chunk vector search, and graph-derived chunks ranked by similarity. */
  question: number[] | null;
  entity: number[] | null;
  relationship: number[] | null;
}

/** The question for chunks, low-level keywords for entities, high-level for relationships: one call for all. */
async function embedQueries(
  embedder: EmbeddingProvider,
  recipe: RetrievalRecipe,
  query: string,
  keywords: Keywords,
  signal?: AbortSignal,
): Promise<QueryVectors> {
  const graphChunksBySimilarity = recipe.graphExpansion && recipe.graphChunkRanking === 'similarity';
  const wanted = {
    question: recipe.chunkVectorSearch || graphChunksBySimilarity ? query : null,
    entity: recipe.entitySearch ? keywords.low.join(', ') || query : null,
    relationship: recipe.relationshipSearch ? keywords.high.join(', ') || query : null,
  };
  const texts = [...new Set(Object.values(wanted).filter((t): t is string => t !== null))];
  if (texts.length === 0) return { question: null, entity: null, relationship: null };
  const embedded = await embedOrUnavailable(embedder, texts, signal, true);
  const vectorOf = (text: string | null) => (text === null ? null : embedded[texts.indexOf(text)]);
  return { question: vectorOf(wanted.question), entity: vectorOf(wanted.entity), relationship: vectorOf(wanted.relationship) };
}

async function rerankChunks(
  reranker: Reranker,
  query: string,
  candidates: ScoredChunk[],
  topK: number,
  signal?: AbortSignal,
): Promise<ScoredChunk[]> {
  const ranked = await reranker.rerank(
    query,
    candidates.map((c) => ({ text: c.record.content, score: c.score, tokens: c.record.tokens || undefined })),
    Math.min(topK, candidates.length),
    signal,
  );
  return ranked.map((r) => ({ ...candidates[r.index], rerankScore: r.score }));
}
