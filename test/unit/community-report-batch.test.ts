import { buildCommunities, REPORTS_PER_CALL } from '../../src/graph/communities/build';
import { MockEmbeddings, MockLlm } from '../../src/llm/mock';
import type { ChatMessage, CompletionOptions, Completion } from '../../src/llm/ports';
import {
  batchReportPrompt,
  parseBatchReportText,
  parseReports,
  REPORT_TEXT_MARKER,
  type ReportMembers,
} from '../../src/prompts/community-report';
import { createMemoryStores } from '../../src/store/memory';
import { plantClusters } from '../contract/communities.contract';

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

describe('community reports of small communities', () => {
  const scope = { workspaceId: 'reports' };

  async function build(batches: 'answered' | 'refused' | 'shuffled') {
    const stores = createMemoryStores();
    await plantClusters(stores, scope, 48, 3);
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

  it('asks again alone for a community whose shared report names none of its members', async () => {
    const answered = await build('answered');
    const { llm, communities } = await build('shuffled');
    const titles = (list: typeof communities) => new Map(list.map((c) => [c.id, c.title]));
    expect(titles(communities)).toEqual(titles(answered.communities));
    // Each shared prompt's middle report (odd counts) stays with its own community; every other one is asked again.
    expect(llm.calls.length).toBeGreaterThan(answered.llm.calls.length);
  });
});
