import { buildCommunities, CALL_TOKENS, REPORT_TOKENS, REPORTS_PER_CALL } from '../../src/graph/communities/build';
import { countTokens } from '../../src/llm/tokens';
import { MockEmbeddings, MockLlm } from '../../src/llm/mock';
import type { ChatMessage, CompletionOptions, Completion } from '../../src/llm/ports';
import {
  batchReportPrompt,
  fitMembers,
  parseBatchReportText,
  parseReports,
  REPORT_TEXT_MARKER,
  type ReportMembers,
} from '../../src/prompts/community-report';
import type { Scope } from '../../src/domain/types';
import { createMemoryStores } from '../../src/store/memory';
import type { Stores } from '../../src/store/ports';
import { makeEntity, makeRelationship } from '../contract/fixtures';

/** Small communities share a report prompt (src/graph/communities/build.ts, src/prompts/community-report.ts). */

const members = (name: string): ReportMembers => ({
  entities: [
    { name: `${name} One`, entity_type: 'PERSON', description: `First of ${name}.` },
    { name: `${name} Two`, entity_type: 'PERSON', description: `Second of ${name}.` },
  ],
  relations: [{ source: `${name} One`, target: `${name} Two`, description: `${name} One works with ${name} Two.` }],
});

const report = (community: number | undefined, title: string) => ({
  ...(community === undefined ? {} : { community }),
  title,
  summary: `About ${title}.`,
  rating: 5,
  findings: [],
});

describe('a report prompt for several communities', () => {
  it('lists each community under its heading, and reads back the same members', () => {
    const given = [members('Alpha'), members('Beta'), members('Gamma')];
    const [system, user] = batchReportPrompt(given);
    expect(system.content).toContain('"reports"');
    expect(user.content).toContain('3 communities.');
    const text = user.content.slice(user.content.indexOf(REPORT_TEXT_MARKER) + REPORT_TEXT_MARKER.length);
    expect(parseBatchReportText(text)).toEqual(given);
    expect(parseBatchReportText('entity<|>A<|>PERSON<|>a')).toBeNull();
  });

  it('gives each community the report its number names, in whatever order they come', () => {
    const answer = JSON.stringify({ reports: [report(3, 'Gamma'), report(1, 'Alpha'), report(2, 'Beta')] });
    expect(parseReports(answer, 3).map((r) => r?.title)).toEqual(['Alpha', 'Beta', 'Gamma']);
  });

  it('takes reports without numbers in order, and a bare array too', () => {
    expect(parseReports(JSON.stringify({ reports: [report(undefined, 'A'), report(undefined, 'B')] }), 2).map((r) => r?.title)).toEqual([
      'A',
      'B',
    ]);
    const bare = `Here they are:\n${JSON.stringify([report(2, 'B'), report(undefined, 'A')])}`;
    expect(parseReports(bare, 2).map((r) => r?.title)).toEqual(['A', 'B']);
  });

  it('leaves null where the answer has no usable report: missing, untitled, beyond the count, or not JSON', () => {
    const answer = JSON.stringify({ reports: [report(1, 'A'), { community: 2, summary: 'no title' }, report(9, 'Extra')] });
    // The entry numbered 9 is beyond the count: it takes the next free place, 3.
    expect(parseReports(answer, 3).map((r) => r?.title ?? null)).toEqual(['A', null, 'Extra']);
    expect(parseReports(JSON.stringify({ reports: [report(1, 'A')] }), 2).map((r) => r?.title ?? null)).toEqual(['A', null]);
    expect(parseReports('I cannot help with that.', 2)).toEqual([null, null]);
    expect(parseReports(JSON.stringify(report(undefined, 'Just one')), 2)).toEqual([null, null]);
  });
});

describe('what a report prompt shows of a large community', () => {
  const line = (i: number) => `Member ${i} has a long description. `.repeat(20);
  const large: ReportMembers = {
    entities: Array.from({ length: 25 }, (_, i) => ({ name: `E${i}`, entity_type: 'PERSON', description: line(i) })),
    relations: Array.from({ length: 40 }, (_, i) => ({ source: `E${i % 25}`, target: `E${(i + 1) % 25}`, description: line(i) })),
  };

  it('keeps every line that fits, and says how many tokens they take', () => {
    const small = members('Alpha');
    const { members: kept, tokens } = fitMembers(small, REPORT_TOKENS);
    expect(kept).toEqual(small);
    const text = batchReportPrompt([small])[1].content;
    const lines = text.split('\n').filter((l) => /^(entity|relation)<\|>/.test(l));
    expect(tokens).toBe(lines.reduce((sum, l) => sum + countTokens(l) + 1, 0));
  });

  it('drops the least connected members and the lightest relationships, in proportion, to fit the budget', () => {
    const { members: kept, tokens } = fitMembers(large, 2_000);
    expect(tokens).toBeLessThanOrEqual(2_000);
    // The first of each list are kept, the last left out; both lists shrink by about the same share.
    expect(kept.entities).toEqual(large.entities.slice(0, kept.entities.length));
    expect(kept.relations).toEqual(large.relations.slice(0, kept.relations.length));
    expect(kept.entities.length).toBeLessThan(25);
    expect(kept.relations.length).toBeLessThan(40);
    expect(Math.abs(kept.entities.length / 25 - kept.relations.length / 40)).toBeLessThan(0.1);
    // One more line of either list would not have fitted.
    expect(fitMembers(large, tokens).members).toEqual(kept);
  });

  it('keeps one entity whatever the budget', () => {
    expect(fitMembers(large, 1).members).toEqual({ entities: [large.entities[0]], relations: [] });
  });
});

/**
 * Counts report calls; when told to, answers a prompt of several communities with prose, or with its reports
 * numbered in order but written about the communities in reverse order.
 */
class ReportLlm extends MockLlm {
  calls: number[] = [];
  constructor(private readonly batches: 'answered' | 'refused' | 'shuffled') {
    super();
  }
  override async complete(messages: ChatMessage[], options: CompletionOptions = {}): Promise<Completion> {
    const batch = parseBatchReportText(messages[messages.length - 1].content.split(REPORT_TEXT_MARKER)[1] ?? '');
    if (options.task === 'community_report') this.calls.push(batch?.length ?? 1);
    const answer = await super.complete(messages, options);
    if (!batch || this.batches === 'answered') return answer;
    if (this.batches === 'refused') return { ...answer, text: 'Sorry, one at a time.' };
    const { reports } = JSON.parse(answer.text) as { reports: Array<Record<string, unknown>> };
    const reversed = reports.map((r, i) => ({ ...reports[reports.length - 1 - i], community: i + 1 }));
    return { ...answer, text: JSON.stringify({ reports: reversed }) };
  }
}

/** `clusters` groups of `size` entities, each related to every other of its group, and no relationship between groups. */
async function plantGroups(stores: Stores, scope: Scope, clusters: number, size: number, description = (k: number) => `Group ${k}.`) {
  const entities = [];
  const relationships = [];
  for (let k = 0; k < clusters; k++) {
    for (let i = 0; i < size; i++) {
      entities.push(makeEntity(`C${k}_N${i}`, { description: `Member ${i} of group ${k}. ${description(k)}` }));
      for (let j = 0; j < i; j++) relationships.push(makeRelationship(`C${k}_N${j}`, `C${k}_N${i}`, { description: description(k) }));
    }
  }
  await stores.graph.upsertEntities(scope, entities);
  await stores.graph.upsertRelationships(scope, relationships);
}

describe('community reports of small communities', () => {
  const scope = { workspaceId: 'reports' };

  async function build(batches: 'answered' | 'refused' | 'shuffled') {
    const stores = createMemoryStores();
    await plantGroups(stores, scope, 60, 3);
    const llm = new ReportLlm(batches);
    const run = await buildCommunities({ stores, llm, embedder: new MockEmbeddings() }, scope);
    return { llm, run, communities: await stores.communities.all(scope) };
  }

  it('writes several in one call, each report about its own community', async () => {
    const { llm, run, communities } = await build('answered');
    expect(run.reports_generated).toBe(communities.length);
    expect(communities.length).toBeGreaterThan(REPORTS_PER_CALL);
    expect(llm.calls.length).toBeLessThan(communities.length);
    expect(llm.calls.reduce((a, b) => a + b, 0)).toBe(communities.length);
    expect(Math.max(...llm.calls)).toBeLessThanOrEqual(REPORTS_PER_CALL);
    for (const c of communities) {
      // The mock names a report after two of the members it was shown (entity C3_N1 is named "C3 N1"): those of
      // this community.
      const named = /^Community of (C\d+ N\d+) and (C\d+ N\d+)$/.exec(c.title);
      expect(named).not.toBeNull();
      const ids = [named![1], named![2]].map((name) => name.replace(' ', '_'));
      expect(c.member_ids).toEqual(expect.arrayContaining(ids));
    }
  });

  it('asks for each community alone once a model answers a shared prompt with no usable report', async () => {
    const answered = await build('answered');
    const { llm, run, communities } = await build('refused');
    const shared = llm.calls.filter((n) => n > 1).length;
    // The first shared prompt refused turns sharing off; only those already sent (one per lane, four lanes) go unanswered.
    expect(shared).toBeGreaterThan(0);
    expect(shared).toBeLessThanOrEqual(4);
    expect(shared).toBeLessThan(answered.llm.calls.filter((n) => n > 1).length);
    expect(llm.calls.length).toBe(shared + communities.length);
    expect(run.reports_generated).toBe(communities.length);
    // The same reports as when the shared prompts were answered.
    const titles = (list: typeof communities) => new Map(list.map((c) => [c.id, c.title]));
    expect(titles(communities)).toEqual(titles(answered.communities));
  });

  it('shows each large community up to its token budget, and puts several in one call up to the call budget', async () => {
    const stores = createMemoryStores();
    await plantGroups(stores, scope, 6, 30, (k) => `Group ${k} meets weekly to plan the harbour festival and its fireworks. `.repeat(8));
    const llm = new ReportLlm('answered');
    const prompts: string[] = [];
    const complete = llm.complete.bind(llm);
    llm.complete = async (messages, options) => {
      prompts.push(messages[messages.length - 1].content);
      return complete(messages, options);
    };
    const run = await buildCommunities({ stores, llm, embedder: new MockEmbeddings() }, scope);
    expect(run.reports_generated).toBe(6);
    const linesOf = (prompt: string) => prompt.split('\n').filter((l) => /^(entity|relation)<\|>/.test(l));
    for (const prompt of prompts) {
      const sections = prompt.split(/^### Community \d+$/m).slice(1);
      for (const section of sections) {
        expect(linesOf(section).reduce((sum, l) => sum + countTokens(l) + 1, 0)).toBeLessThanOrEqual(REPORT_TOKENS);
      }
      expect(linesOf(prompt).reduce((sum, l) => sum + countTokens(l) + 1, 0)).toBeLessThanOrEqual(CALL_TOKENS);
    }
    // Each group alone would fill far more than its budget: its prompt leaves out members and relationships.
    expect(linesOf(prompts[0]).length).toBeLessThan(2 * (30 + 40));
    expect(llm.calls.length).toBeLessThan(6);
    expect(Math.max(...llm.calls)).toBeGreaterThan(1);
  });

  it('asks again alone for a community whose shared report names none of its members', async () => {
    const answered = await build('answered');
    const { llm, communities } = await build('shuffled');
    const titles = (list: typeof communities) => new Map(list.map((c) => [c.id, c.title]));
    expect(titles(communities)).toEqual(titles(answered.communities));
    // Each shared prompt's middle report (odd counts) stays with its own community; every other one is asked again.
    expect(llm.calls.length).toBeGreaterThan(answered.llm.calls.length);
  });
});
