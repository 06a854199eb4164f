import { nameKey, namesDistinct, nameSimilarity, typesCompatible } from '../../domain/entity-names';
import { cosine } from '../../domain/vector';
import { entitiesWithin } from '../../store/retrieval-reads';
import { normalizeEntityId } from '../../domain/ids';
import type { EntityRecord, Scope } from '../../domain/types';
import type { TokenUsage } from '../../llm/ports';
import { resolveEntityAliases } from '../aliases';
import type { GraphDeps } from '../deps';
import { type MergeGroup, mergeGroups, type StaleRecords } from '../merge';
import { type AskPairs, confirmPairs } from './confirm';
import { distinctFromEach } from './distinct';
import { lookupNames } from './name-index';
import type { ResolutionSettings } from './settings';

/**
 * Entity resolution (docs/architecture.md §5.10), from cheap to costly: candidates come from the name index
 * (normalised name, initials, words, prefix, consonants), read by key, never by a scan; a candidate of an
 * incompatible type, one kept apart by an analyst, one whose name cannot be the same thing (two acronyms, different
 * numbers: `namesDistinct`) and one too unlike by name to reach the review score is dropped; the score is the name
 * similarity, weighed with the similarity of the entities' vectors (name + description) unless the names are equal
 * in normalised form or as an acronym. At or above `merge_score` the pair merges; from `review_score` the LLM is
 * asked, the pairs of a run in batches (./confirm.ts, task `resolve`).
 */

export interface MergeProposal {
  /** The entity absorbed. */
  source_id: string;
  source_name: string;
  /** The survivor: the one with more sources, else the older. */
  target_id: string;
  target_name: string;
  score: number;
  name_score: number;
  embedding_score: number | null;
  /** `merge`: over the merge score; `confirmed`/`rejected`: the LLM's answer in the review band. */
  decision: 'merge' | 'confirmed' | 'rejected' | 'unconfirmed';
  reason: string;
}

export interface ProposalRun {
  proposals: MergeProposal[];
  llm_calls: number;
  usage: TokenUsage;
}

const NAME_CANDIDATES = 20;
const NO_SOURCES = { chunks: 0, documents: 0 };

export interface ProposeOptions {
  /** Ask the LLM about the pairs in the review band (else they are `unconfirmed`). */
  confirm: boolean;
  /**
   * The entities' vectors (of `entityText`), in their order: those the embedding queue computed for the entity
   * vector index, so that resolution embeds nothing of its own. Asked only for the entities with a candidate whose
   * score an embedding can decide.
   */
  vectors: (entities: EntityRecord[]) => Promise<number[][]>;
  /**
   * Weigh every candidate's embedding similarity, those scored by name alone too (evidence for a reviewer); without
   * it, the vectors of an entity whose candidates all score by name alone are not read.
   */
  allSimilarities?: boolean;
  /**
   * Called once the names are read, before any vector: the entities a merge of this run may touch (those with a
   * candidate that can reach the review score, and those candidates). The others take part in no merge of the run.
   */
  onCandidates?: (entityIds: Set<string>) => void;
  /** Who asks the LLM about the pairs in the review band (./confirm.ts; by default this run's calls, at once). */
  ask?: AskPairs;
}

/**
 * The best merge candidate of each entity, scored; with `confirm`, the LLM decides those in the review band
 * (else they are `unconfirmed`). Each pair is proposed once. The names decide first: a candidate that cannot reach
 * the review score even with identical embeddings is dropped before any vector is read, and an entity whose
 * remaining candidates all score by name alone (equal names, acronyms) needs no vector.
 */
export async function proposeMerges(
  deps: GraphDeps,
  scope: Scope,
  entities: EntityRecord[],
  settings: ResolutionSettings,
  options: ProposeOptions,
): Promise<ProposalRun> {
  const run: ProposalRun = { proposals: [], llm_calls: 0, usage: { input_tokens: 0, output_tokens: 0 } };
  const candidates = entities.length ? await readCandidates(deps, scope, entities, settings) : [];
  options.onCandidates?.(
    new Set(entities.flatMap((e, i) => (candidates[i].length ? [e.id, ...candidates[i].map((c) => c.candidate.id)] : []))),
  );
  const similarity = await embeddingSimilarity(deps, scope, entities, candidates, options);
  const seen = new Set<string>();
  const review: Array<{ proposal: MergeProposal; pair: [EntityRecord, EntityRecord] }> = [];
  for (const [i, entity] of entities.entries()) {
    let best: { candidate: EntityRecord; score: number; name: number; embedding: number | null } | null = null;
    for (const { candidate, name } of candidates[i]) {
      const embedding = similarity[i]?.get(candidate.id) ?? null;
      const score = combinedScore(name, embedding);
      if (!best || score > best.score) best = { candidate, score, name, embedding };
    }
    if (!best || best.score < settings.review_score) continue;
    const [source, target] = survivorOrder(entity, best.candidate);
    const pair = [source.id, target.id].sort().join('\u0000');
    if (seen.has(pair)) continue;
    seen.add(pair);
    const proposal: MergeProposal = {
      source_id: source.id,
      source_name: source.name,
      target_id: target.id,
      target_name: target.name,
      score: round(best.score),
      name_score: round(best.name),
      embedding_score: best.embedding === null ? null : round(best.embedding),
      decision: 'merge',
      reason: reasonOf(entity.name, best.candidate.name, best.name),
    };
    if (best.score < settings.merge_score) {
      proposal.decision = 'unconfirmed';
      if (options.confirm) review.push({ proposal, pair: [source, target] });
    }
    run.proposals.push(proposal);
  }
  if (review.length === 0) return run;
  const verdicts = await confirmPairs(
    deps,
    scope,
    review.map((r) => r.pair),
    run,
    options.ask,
  );
  review.forEach(({ proposal }, i) => {
    const same = verdicts[i];
    proposal.decision = same ? 'confirmed' : 'rejected';
    proposal.reason = `${proposal.reason}; ${same ? 'confirmed' : 'rejected'} by the LLM`;
  });
  return run;
}

/** A candidate of an entity that can reach the review score, with its name similarity. */
interface Candidate {
  candidate: EntityRecord;
  name: number;
}

/**
 * The candidates of every entity of a run that can reach the review score, read in a few statements whatever their
 * number: the name index and the analysts' splits at once, then the records of all of them at once. Candidates come
 * from the name index only: a pair scores at most 0.6 of its name similarity and 0.3 of its embedding similarity
 * (combinedScore), so a candidate whose name is not like the entity's (below about two thirds) never reaches the
 * review band, and the index's terms find the names that are (misspellings included). The vector index is not
 * searched: on the handbook it found no merge the names did not (the resolution test set merged the same pairs),
 * and in Neo4j its searches were the costliest statement of an ingest. Dropped: a candidate of an incompatible type,
 * one kept apart by an analyst, one whose name cannot be the same thing (namesDistinct), and one below the review
 * score even with identical embeddings.
 */
async function readCandidates(
  deps: GraphDeps,
  scope: Scope,
  entities: EntityRecord[],
  settings: ResolutionSettings,
): Promise<Candidate[][]> {
  const { stores } = deps;
  const [names, distinct] = await Promise.all([
    lookupNames(
      stores.kv,
      scope,
      entities.map((e) => e.name),
      NAME_CANDIDATES,
    ),
    distinctFromEach(
      stores.kv,
      scope,
      entities.map((e) => e.id),
    ),
  ]);
  const named = names.map((ids, i) => ids.filter((id) => id !== entities[i].id));
  const records = new Map((await stores.graph.getEntities(scope, [...new Set(named.flat())])).map((e) => [e.id, e]));
  return entities.map((entity, i) =>
    named[i].flatMap((id) => {
      const c = records.get(id);
      if (
        !c ||
        distinct.get(entity.id)?.has(c.id) ||
        !typesCompatible(entity.entity_type, c.entity_type) ||
        namesDistinct(entity.name, c.name)
      ) {
        return [];
      }
      const name = nameSimilarity(entity.name, c.name);
      return combinedScore(name, 1) >= settings.review_score ? [{ candidate: c, name }] : [];
    }),
  );
}

/**
 * The cosine similarity of each entity's vector with its candidates' stored vectors, for the entities with a
 * candidate scored by name and embedding (combinedScore), or with any candidate (`allSimilarities`): the others'
 * vectors are not asked for.
 */
async function embeddingSimilarity(
  deps: GraphDeps,
  scope: Scope,
  entities: EntityRecord[],
  candidates: Candidate[][],
  options: ProposeOptions,
): Promise<Array<Map<string, number> | undefined>> {
  const weighed = (i: number) => candidates[i].filter((c) => options.allSimilarities || !byNameAlone(c.name));
  const needed = entities.flatMap((_e, i) => (weighed(i).length ? [i] : []));
  if (needed.length === 0) return [];
  const [vectors, stored] = await Promise.all([
    options.vectors(needed.map((i) => entities[i])),
    deps.stores.vectors.vectorsOf(scope, 'entity', [...new Set(needed.flatMap((i) => weighed(i).map((c) => c.candidate.id)))]),
  ]);
  const out: Array<Map<string, number> | undefined> = [];
  needed.forEach((i, j) => {
    const similarity = new Map<string, number>();
    for (const { candidate } of weighed(i)) {
      const vector = stored.get(candidate.id);
      if (vector) similarity.set(candidate.id, cosine(vectors[j], vector));
    }
    out[i] = similarity;
  });
  return out;
}

export interface AppliedMerges {
  applied: Array<{ source_id: string; target_id: string }>;
  skipped: Array<{ source_id: string; target_id: string; reason: string }>;
}

/** Tries of a merge whose entities another merge took meanwhile: each follows the aliases that merge left. */
const MERGE_ATTEMPTS = 3;

type MergeRequest = Pick<MergeProposal, 'source_id' | 'target_id' | 'reason'> & { score?: number };

/** What merges that carry vectors leave to embed: records written with a carried vector, and with none. */
export interface LeftToEmbed {
  stale: StaleRecords;
  unembedded: StaleRecords;
}

/**
 * Applies merges (source into target) as if one by one, following earlier merges of the same call and concurrent
 * ones, but all of them under one lock and in one set of writes (mergeGroups). With `left`, the merges carry
 * vectors and embed nothing: the records to embed (again) are added to it; without, they are embedded first.
 */
export async function applyMerges(
  deps: GraphDeps,
  scope: Scope,
  merges: MergeRequest[],
  cause = 'resolution',
  left?: LeftToEmbed,
): Promise<AppliedMerges> {
  const out: AppliedMerges = { applied: [], skipped: [] };
  const skip = (m: MergeRequest, reason: string) => out.skipped.push({ source_id: m.source_id, target_id: m.target_id, reason });
  let pending = merges;
  for (let attempt = 1; pending.length > 0; attempt++) {
    const live = await resolveEntityAliases(
      deps.stores.kv,
      scope,
      pending.flatMap((m) => [normalizeEntityId(m.source_id), normalizeEntityId(m.target_id)]),
    );
    // Whether they are there: their names only, not a hub's sources.
    const present = new Set((await entitiesWithin(deps.stores.graph, scope, [...new Set(live.values())], NO_SOURCES)).map((e) => e.id));
    const planned = groupMerges(pending, (id) => live.get(normalizeEntityId(id)) as string, present, skip);
    if (planned.groups.length === 0) break;
    const done = await mergeGroups(deps, scope, planned.groups, { cause, carry: Boolean(left) });
    if (left) {
      left.stale.entities.push(...done.stale.entities);
      left.stale.relationships.push(...done.stale.relationships);
      left.unembedded.entities.push(...done.unembedded.entities);
      left.unembedded.relationships.push(...done.unembedded.relationships);
    }
    const merged = new Set(done.merged.map((g) => g.targetId));
    pending = [];
    for (const { request, pair, group } of planned.members) {
      if (merged.has(group)) out.applied.push({ source_id: pair[0], target_id: pair[1] });
      // Another merge took one of its entities between the check and the lock: follow it.
      else if (attempt < MERGE_ATTEMPTS) pending.push(request);
      else skip(request, `entity not found: ${done.missing.find((g) => g.group.targetId === group)?.ids.join(', ')}`);
    }
  }
  return out;
}

/**
 * The merges of a call folded into groups, one per survivor, in their order: a merge whose entities an earlier
 * one already joined is skipped, one whose source survived an earlier merge carries that merge's entities along.
 */
function groupMerges(
  merges: MergeRequest[],
  liveId: (id: string) => string,
  present: Set<string>,
  skip: (m: MergeRequest, reason: string) => void,
) {
  const into = new Map<string, string>();
  const find = (id: string): string => {
    let at = id;
    while (into.has(at)) at = into.get(at) as string;
    return at;
  };
  const accepted: Array<{ request: MergeRequest; pair: [string, string] }> = [];
  for (const m of merges) {
    const [source, target] = [find(liveId(m.source_id)), find(liveId(m.target_id))];
    const absent = [source, target].filter((id) => !present.has(id));
    if (source === target) skip(m, 'already one entity');
    else if (absent.length) skip(m, `entity not found: ${absent.join(', ')}`);
    else {
      into.set(source, target);
      accepted.push({ request: m, pair: [source, target] });
    }
  }
  const groups = new Map<string, MergeGroup>();
  for (const { request, pair } of accepted) {
    const root = find(pair[1]);
    const group = groups.get(root) ?? { targetId: root, sourceIds: [], reason: '' };
    group.sourceIds.push(pair[0]);
    const reason = `entity resolution: ${request.reason}${request.score === undefined ? '' : ` (score ${request.score})`}`;
    group.reason = group.reason ? `${group.reason}; ${reason}` : reason;
    groups.set(root, group);
  }
  return { groups: [...groups.values()], members: accepted.map((a) => ({ ...a, group: find(a.pair[1]) })) };
}

/**
 * Equal normalised names (1) and acronyms (0.95) score their name similarity; any other pair at most 0.9 (0.6 of
 * the name similarity and 0.3 of the embedding similarity), so that with the default thresholds only the LLM
 * merges names that merely look alike.
 */
export function combinedScore(name: number, embedding: number | null): number {
  if (byNameAlone(name)) return name;
  return 0.6 * name + 0.3 * Math.max(0, embedding ?? 0.5);
}

/** Names this alike (equal in normalised form, an acronym of the other) score by name alone. */
const byNameAlone = (name: number) => name >= 0.95;

/** [absorbed, survivor]: the entity with more sources survives, else the older, else the smaller id. */
function survivorOrder(a: EntityRecord, b: EntityRecord): [EntityRecord, EntityRecord] {
  const weight = (e: EntityRecord) => new Set(e.source_chunk_ids).size;
  if (weight(a) !== weight(b)) return weight(a) > weight(b) ? [b, a] : [a, b];
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? [b, a] : [a, b];
  return a.id < b.id ? [b, a] : [a, b];
}

function reasonOf(a: string, b: string, nameScore: number): string {
  if (nameKey(a) === nameKey(b)) return 'same normalised name';
  if (nameScore >= 0.95) return 'acronym of the other name';
  return 'similar name and description';
}

const round = (x: number) => Math.round(x * 1000) / 1000;
