import { createHash } from 'node:crypto';
import type { CommunityRecord, CommunityRunSummary } from '../../domain/communities';
import type { EntityRecord, RelationshipRecord, Scope } from '../../domain/types';
import type { EmbeddingProvider, LlmProvider } from '../../llm/ports';
import { COMMUNITY_REPORT_PROMPT_VERSION, type CommunityReport, parseReport, reportPrompt } from '../../prompts/community-report';
import type { GraphSnapshot, Stores } from '../../store/ports';
import { type DetectedCommunity, detectCommunities } from './detect';

/** Entities of a workspace beyond this are left out of community detection (the most connected are kept). */
export const MAX_COMMUNITY_NODES = 200_000;
/** What one report prompt shows of its community: the most connected members and the heaviest relationships. */
export const REPORT_ENTITIES = 25;
export const REPORT_RELATIONSHIPS = 40;
const REPORT_CONCURRENCY = 4;
const FETCH_BATCH = 1_000;

export interface CommunityBuildDeps {
  stores: Pick<Stores, 'analytics' | 'communities' | 'graph'>;
  llm: LlmProvider;
  embedder: EmbeddingProvider;
  now?: () => string;
  signal?: AbortSignal;
}

interface Pending {
  detected: DetectedCommunity;
  hash: string;
  /** The hash as runs before the order-free one wrote it (their reports are kept when only the order differs). */
  orderedHash: string;
  messages: ReturnType<typeof reportPrompt>;
  entities: EntityRecord[];
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

async function inBatches<T>(ids: string[], read: (batch: string[]) => Promise<T[]>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < ids.length; i += FETCH_BATCH) out.push(...(await read(ids.slice(i, i + FETCH_BATCH))));
  return out;
}

/** Runs `work` over the items, `limit` at a time, keeping the order of the results. */
async function pool<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]);
    }
  });
  await Promise.all(lanes);
  return results;
}

/**
 * Detects the communities of a workspace and stores them with their reports. A community whose members, their
 * descriptions and the relationships among them are unchanged since the last run (same content hash) keeps its
 * report; only new or changed communities cost an LLM call and an embedding.
 */
export async function buildCommunities(deps: CommunityBuildDeps, scope: Scope): Promise<CommunityRunSummary> {
  const now = deps.now ?? (() => new Date().toISOString());
  const startedAt = now();
  const t0 = performance.now();
  const { stores } = deps;
  const snapshot = await stores.analytics.snapshot(scope, MAX_COMMUNITY_NODES);
  const detection = detectCommunities(snapshot);
  const previous = new Map((await stores.communities.all(scope)).map((c) => [c.content_hash, c]));

  const degree = degreesOf(snapshot);
  const memberIds = [...new Set(detection.communities.flatMap((c) => c.member_ids))].sort(compare);
  const entities = new Map((await inBatches(memberIds, (b) => stores.graph.getEntities(scope, b))).map((e) => [e.id, e]));
  // One pass over the edges per level: each edge inside a community goes to it.
  const edgesOf = new Map<string, GraphSnapshot['edges']>();
  const levels = [...new Set(detection.communities.map((c) => c.level))];
  for (const level of levels) {
    const home = new Map<string, string>();
    for (const c of detection.communities) if (c.level === level) for (const id of c.member_ids) home.set(id, c.id);
    for (const e of snapshot.edges) {
      const id = home.get(e.source);
      if (id === undefined || home.get(e.target) !== id) continue;
      const list = edgesOf.get(id);
      if (list) list.push(e);
      else edgesOf.set(id, [e]);
    }
  }
  for (const [id, edges] of edgesOf) {
    edgesOf.set(id, edges.sort((a, b) => b.weight - a.weight || compare(a.id, b.id)).slice(0, REPORT_RELATIONSHIPS));
  }
  const relationshipIds = [...new Set([...edgesOf.values()].flatMap((edges) => edges.map((e) => e.id)))].sort(compare);
  const relationships = new Map(
    (await inBatches(relationshipIds, (b) => stores.graph.getRelationships(scope, b))).map((r): [string, RelationshipRecord] => [r.id, r]),
  );

  const pending: Pending[] = detection.communities.map((detected) => {
    const shown = detected.member_ids
      .filter((id) => entities.has(id))
      .sort((a, b) => (degree.get(b) ?? 0) - (degree.get(a) ?? 0) || compare(a, b))
      .slice(0, REPORT_ENTITIES)
      .map((id) => entities.get(id) as EntityRecord);
    const rels = (edgesOf.get(detected.id) ?? []).map((e) => relationships.get(e.id)).filter((r): r is RelationshipRecord => !!r);
    const messages = reportPrompt(
      shown.map((e) => ({ name: e.name, entity_type: e.entity_type, description: e.description })),
      rels.map((r) => ({
        source: entities.get(r.source)?.name ?? r.source,
        target: entities.get(r.target)?.name ?? r.target,
        description: r.description,
      })),
    );
    return { detected, ...contentHashes(detected, messages[1].content), messages, entities: shown };
  });

  let generated = 0;
  const stamp = now();
  const records = await pool(pending, REPORT_CONCURRENCY, async (p): Promise<CommunityRecord> => {
    const base = {
      id: p.detected.id,
      level: p.detected.level,
      parent_id: p.detected.parent_id,
      member_ids: p.detected.member_ids,
      size: p.detected.member_ids.length,
      content_hash: p.hash,
    };
    const kept = previous.get(p.hash) ?? previous.get(p.orderedHash);
    if (kept) return { ...kept, ...base, updated_at: kept.updated_at };
    const report = await writeReport(deps.llm, p, deps.signal);
    generated++;
    return {
      ...base,
      title: report.title,
      summary: report.summary,
      findings: report.findings,
      rank: report.rating,
      embedding: [],
      report_model: `${deps.llm.provider}/${deps.llm.model}`,
      created_at: stamp,
      updated_at: stamp,
    };
  });

  const unembedded = records.filter((r) => r.embedding.length === 0);
  for (let i = 0; i < unembedded.length; i += 64) {
    const batch = unembedded.slice(i, i + 64);
    const vectors = await deps.embedder.embed(batch.map(reportText), deps.signal);
    batch.forEach((r, k) => (r.embedding = vectors[k] ?? []));
  }
  await stores.communities.replaceAll(scope, records);
  return {
    started_at: startedAt,
    finished_at: now(),
    entities: snapshot.nodes.length,
    relationships: snapshot.edges.length,
    communities: records.length,
    levels: detection.levels,
    reports_generated: generated,
    reports_reused: records.length - generated,
    modularity: Math.round(detection.modularity * 1e6) / 1e6,
    duration_ms: Math.round(performance.now() - t0),
    error: null,
  };
}

/**
 * A community's content hash: its level, members and the lines of its report prompt, in no particular order. The
 * prompt lists the members by degree and the relationships by weight; an edit elsewhere that only moves a member's
 * degree or a relationship's weight reorders the lines but changes neither the members nor what describes them, and
 * so keeps the report.
 */
function contentHashes(detected: DetectedCommunity, prompt: string): { hash: string; orderedHash: string } {
  const sha = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex');
  const [heading, ...lines] = prompt.split('\n');
  return {
    hash: sha([COMMUNITY_REPORT_PROMPT_VERSION, detected.level, detected.member_ids, heading, lines.sort(compare)]),
    orderedHash: sha([COMMUNITY_REPORT_PROMPT_VERSION, detected.level, detected.member_ids, prompt]),
  };
}

/** The text a report is searched by (embedding and keywords). */
export function reportText(c: Pick<CommunityRecord, 'title' | 'summary'>): string {
  return `${c.title}: ${c.summary}`;
}

async function writeReport(llm: LlmProvider, p: Pending, signal?: AbortSignal): Promise<CommunityReport> {
  const answer = await llm.complete(p.messages, { task: 'community_report', temperature: 0, json: true, signal });
  return parseReport(answer.text) ?? plainReport(p);
}

/** When the model's answer is unusable: the members name the community, their descriptions summarise it. */
function plainReport(p: Pending): CommunityReport {
  const names = p.entities.slice(0, 3).map((e) => e.name);
  return {
    title: names.length ? names.join(', ') : p.detected.id,
    summary: p.entities
      .slice(0, 5)
      .map((e) => `${e.name}: ${e.description}`)
      .join(' ')
      .slice(0, 1000),
    rating: 0,
    findings: [],
  };
}

function degreesOf(snapshot: GraphSnapshot): Map<string, number> {
  const degree = new Map<string, number>();
  for (const e of snapshot.edges) {
    degree.set(e.source, (degree.get(e.source) ?? 0) + 1);
    degree.set(e.target, (degree.get(e.target) ?? 0) + 1);
  }
  return degree;
}
