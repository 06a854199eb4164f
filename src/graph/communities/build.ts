import { createHash } from 'node:crypto';
import type { CommunityRecord, CommunityRunSummary } from '../../domain/communities';
import type { EntityRecord, RelationshipRecord, Scope } from '../../domain/types';
import type { EmbeddingProvider, LlmProvider } from '../../llm/ports';
import {
  batchReportPrompt,
  COMMUNITY_REPORT_PROMPT_VERSION,
  type CommunityReport,
  fitMembers,
  parseReport,
  parseReports,
  type ReportMembers,
  reportPrompt,
} from '../../prompts/community-report';
import type { GraphSnapshot, Stores } from '../../store/ports';
import { type DetectedCommunity, detectCommunities } from './detect';

/** Entities of a workspace beyond this are left out of community detection (the most connected are kept). */
export const MAX_COMMUNITY_NODES = 200_000;
/** What one report prompt shows of its community: the most connected members and the heaviest relationships. */
export const REPORT_ENTITIES = 25;
export const REPORT_RELATIONSHIPS = 40;
/**
 * Of those, what fits in this many tokens (cl100k): the lines left out are the least connected members and the
 * lightest relationships. At 4,000, `global` retrieval lost passages on the handbook corpus (docs/benchmarks.md).
 */
export const REPORT_TOKENS = 6_000;
const REPORT_CONCURRENCY = 4;
/**
 * Communities share a report prompt: at most this many in one, and no more member lines together than
 * CALL_TOKENS (two of the largest communities, or many small ones). The answer is one short report per community.
 */
export const REPORTS_PER_CALL = 10;
export const CALL_TOKENS = 12_000;
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
  /** The prompt of this community alone (its content hash is taken from it). */
  messages: ReturnType<typeof reportPrompt>;
  /** What the prompt shows of it, for a prompt shared with other communities. */
  members: ReportMembers;
  /** Tokens of its member lines. */
  tokens: number;
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
    const { members, tokens } = fitMembers(
      {
        entities: shown.map((e) => ({ name: e.name, entity_type: e.entity_type, description: e.description })),
        relations: rels.map((r) => ({
          source: entities.get(r.source)?.name ?? r.source,
          target: entities.get(r.target)?.name ?? r.target,
          description: r.description,
        })),
      },
      REPORT_TOKENS,
    );
    const messages = reportPrompt(members.entities, members.relations);
    return {
      detected,
      ...contentHashes(detected, messages[1].content),
      messages,
      members,
      tokens,
      entities: shown.slice(0, members.entities.length),
    };
  });

  const keptOf = (p: Pending) => previous.get(p.hash) ?? previous.get(p.orderedHash);
  const fresh = pending.filter((p) => !keptOf(p));
  const written = new Map<Pending, CommunityReport>();
  const sharing = { on: true };
  await pool(reportBatches(fresh), REPORT_CONCURRENCY, async (batch) => {
    const reports = await writeReports(deps.llm, batch, sharing, deps.signal);
    batch.forEach((p, i) => written.set(p, reports[i]));
  });
  const stamp = now();
  const records = pending.map((p): CommunityRecord => {
    const base = {
      id: p.detected.id,
      level: p.detected.level,
      parent_id: p.detected.parent_id,
      member_ids: p.detected.member_ids,
      size: p.detected.member_ids.length,
      content_hash: p.hash,
    };
    const kept = keptOf(p);
    if (kept) return { ...kept, ...base, updated_at: kept.updated_at };
    const report = written.get(p) as CommunityReport;
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
  const generated = fresh.length;

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

/**
 * The communities to report on, grouped into prompts: smallest first, each group as many as fit in
 * REPORTS_PER_CALL and CALL_TOKENS. The same graph gives the same groups.
 */
function reportBatches(fresh: Pending[]): Pending[][] {
  const sorted = [...fresh].sort((a, b) => a.tokens - b.tokens || compare(a.detected.id, b.detected.id));
  const batches: Pending[][] = [];
  let batch: Pending[] = [];
  let used = 0;
  for (const p of sorted) {
    if (batch.length > 0 && (batch.length >= REPORTS_PER_CALL || used + p.tokens > CALL_TOKENS)) {
      batches.push(batch);
      batch = [];
      used = 0;
    }
    batch.push(p);
    used += p.tokens;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/**
 * The reports of one group, in its order: one call for the group; a community the answer gives no usable report
 * for, or one that names none of its members (a report that went to the wrong community), is asked again alone (a
 * model that cannot write several reports at once still writes each one). An answer
 * with no usable report at all turns sharing off for the rest of the run: that model is asked one community a call.
 */
async function writeReports(
  llm: LlmProvider,
  batch: Pending[],
  sharing: { on: boolean },
  signal?: AbortSignal,
): Promise<CommunityReport[]> {
  const reports: CommunityReport[] = [];
  let parsed: Array<CommunityReport | null> = [];
  if (batch.length > 1 && sharing.on) {
    const messages = batchReportPrompt(batch.map((p) => p.members));
    const answer = await llm.complete(messages, { task: 'community_report', temperature: 0, json: true, signal });
    parsed = parseReports(answer.text, batch.length).map((r, i) => (r && namesAMember(r, batch[i]) ? r : null));
    if (parsed.every((r) => r === null)) sharing.on = false;
  }
  for (const [i, p] of batch.entries()) reports.push(parsed[i] ?? (await writeReport(llm, p, signal)));
  return reports;
}

/** Whether a report's title or summary names one of the members its community's prompt showed. */
function namesAMember(report: CommunityReport, p: Pending): boolean {
  const said = `${report.title}\n${report.summary}`.toLowerCase();
  return p.members.entities.some((e) => e.name.trim() !== '' && said.includes(e.name.trim().toLowerCase()));
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
