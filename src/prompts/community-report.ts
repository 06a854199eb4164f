/**
 * The community report prompt: the members of one community (entities, then the relationships among them, one
 * per line after `---TEXT---`) become a JSON report:
 *
 *   {"title": "...", "summary": "...", "rating": 0-10, "findings": [{"summary": "...", "explanation": "..."}]}
 *
 * Lines of the text are `entity<|>NAME<|>TYPE<|>DESCRIPTION` and `relation<|>SOURCE<|>TARGET<|>DESCRIPTION`.
 * Small communities share a prompt: each under a `### Community N` heading, answered with one object holding a
 * report per community, `{"reports": [{"community": N, "title": ...}, ...]}`.
 * The mock provider reads exactly these lines, so the real parser runs in every mode.
 */

import { countTokens } from '../llm/tokens';

export const COMMUNITY_REPORT_PROMPT_VERSION = 1;
export const REPORT_TEXT_MARKER = '---TEXT---';
const DELIMITER = '<|>';
const HEADING = /^### Community (\d+)$/;

export interface ReportEntity {
  name: string;
  entity_type: string;
  description: string;
}

export interface ReportRelation {
  source: string;
  target: string;
  description: string;
}

export interface CommunityReport {
  title: string;
  summary: string;
  rating: number;
  findings: Array<{ summary: string; explanation: string }>;
}

const SYSTEM =
  'You write reports about communities of a knowledge graph: groups of entities that are closely related. ' +
  'From the entities and relationships given, write a JSON object with the fields "title" (a short, specific ' +
  'name of the community, naming its key entities), "summary" (an executive summary of what connects the ' +
  'entities, in a few sentences), "rating" (a number from 0 to 10: how important the community is to the ' +
  'collection as a whole) and "findings" (up to 5 objects with "summary" and "explanation": the key insights). ' +
  'Use only facts from the text. Answer with the JSON object only.';

const BATCH_SYSTEM =
  'You write reports about communities of a knowledge graph: groups of entities that are closely related. ' +
  'Several communities follow, each under a heading "### Community N". For each of them, from its entities and ' +
  'relationships only, write a JSON object with the fields "community" (its number N), "title" (a short, specific ' +
  'name of the community, naming its key entities), "summary" (an executive summary of what connects the ' +
  'entities, in a few sentences), "rating" (a number from 0 to 10: how important the community is to the ' +
  'collection as a whole) and "findings" (up to 5 objects with "summary" and "explanation": the key insights). ' +
  'Use only facts from the text. Answer with one JSON object only: {"reports": [...]}, one report per community, ' +
  'in the order given.';

/** What a report prompt shows of one community. */
export interface ReportMembers {
  entities: ReportEntity[];
  relations: ReportRelation[];
}

function flat(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/<\|>/g, ' ').trim();
}

function entityLine(e: ReportEntity): string {
  return ['entity', flat(e.name), flat(e.entity_type), flat(e.description)].join(DELIMITER);
}

function relationLine(r: ReportRelation): string {
  return ['relation', flat(r.source), flat(r.target), flat(r.description)].join(DELIMITER);
}

function memberLines({ entities, relations }: ReportMembers): string[] {
  return [...entities.map(entityLine), ...relations.map(relationLine)];
}

/**
 * The members whose lines fit in `maxTokens` (cl100k, line breaks included), and how many tokens they take. Lines
 * are dropped from the end of the lists (the least connected entities, the lightest relationships), the two lists
 * giving way in proportion to their lengths; one entity is always kept.
 */
export function fitMembers(members: ReportMembers, maxTokens: number): { members: ReportMembers; tokens: number } {
  const entityTokens = members.entities.map((e) => countTokens(entityLine(e)) + 1);
  const relationTokens = members.relations.map((r) => countTokens(relationLine(r)) + 1);
  let tokens = [...entityTokens, ...relationTokens].reduce((a, b) => a + b, 0);
  let e = entityTokens.length;
  let r = relationTokens.length;
  while (tokens > maxTokens && e + r > 1) {
    // Relationships go first while they are the larger share of what is left (and once one entity is left).
    if (r > 0 && (e <= 1 || r * entityTokens.length >= e * relationTokens.length)) tokens -= relationTokens[--r];
    else tokens -= entityTokens[--e];
  }
  return { members: { entities: members.entities.slice(0, e), relations: members.relations.slice(0, r) }, tokens };
}

function sizeLine({ entities, relations }: ReportMembers): string {
  return `Community of ${entities.length} entities and ${relations.length} relationships.`;
}

export function reportPrompt(entities: ReportEntity[], relations: ReportRelation[]): Array<{ role: 'system' | 'user'; content: string }> {
  const members = { entities, relations };
  const user = [sizeLine(members), REPORT_TEXT_MARKER, ...memberLines(members)].join('\n');
  return [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: user },
  ];
}

/** One prompt for several communities; `parseReports` reads its answer. */
export function batchReportPrompt(communities: ReportMembers[]): Array<{ role: 'system' | 'user'; content: string }> {
  const sections = communities.flatMap((c, i) => [`### Community ${i + 1}`, sizeLine(c), ...memberLines(c)]);
  const user = [`${communities.length} communities.`, REPORT_TEXT_MARKER, ...sections].join('\n');
  return [
    { role: 'system', content: BATCH_SYSTEM },
    { role: 'user', content: user },
  ];
}

/** The communities of a batched prompt's text, in order; null when the text has no community headings. */
export function parseBatchReportText(text: string): ReportMembers[] | null {
  const sections: string[][] = [];
  for (const line of text.split(/\r?\n/)) {
    if (HEADING.test(line.trim())) sections.push([]);
    else sections[sections.length - 1]?.push(line);
  }
  return sections.length ? sections.map((lines) => parseReportText(lines.join('\n'))) : null;
}

/** The entity and relation lines of a prompt's text, as written by `reportPrompt`. */
export function parseReportText(text: string): ReportMembers {
  const entities: ReportEntity[] = [];
  const relations: ReportRelation[] = [];
  for (const line of text.split(/\r?\n/)) {
    const fields = line.split(DELIMITER);
    if (fields[0] === 'entity' && fields.length >= 4) {
      entities.push({ name: fields[1], entity_type: fields[2], description: fields.slice(3).join(' ') });
    } else if (fields[0] === 'relation' && fields.length >= 4) {
      relations.push({ source: fields[1], target: fields[2], description: fields.slice(3).join(' ') });
    }
  }
  return { entities, relations };
}

function text(value: unknown, max: number): string {
  return typeof value === 'string' ? value.replace(/\s+/g, ' ').trim().slice(0, max) : '';
}

/**
 * A report from the model's answer: the first JSON object in it, fields checked one by one. Null when there is
 * no usable title or summary (the caller writes a plain report from the members instead).
 */
export function parseReport(answer: string): CommunityReport | null {
  const raw = jsonIn(answer, '{', '}');
  return raw && typeof raw === 'object' && !Array.isArray(raw) ? reportOf(raw as Record<string, unknown>) : null;
}

/**
 * The reports of a batched answer, one per community of the prompt (null where the answer has none usable): the
 * `reports` array of the object answered, or an array answered bare. An entry goes to the community its
 * `community` number names, else to the next one in order.
 */
export function parseReports(answer: string, count: number): Array<CommunityReport | null> {
  const object = jsonIn(answer, '{', '}');
  const list =
    object && typeof object === 'object' && Array.isArray((object as Record<string, unknown>).reports)
      ? ((object as Record<string, unknown>).reports as unknown[])
      : jsonIn(answer, '[', ']');
  const out = new Array<CommunityReport | null>(count).fill(null);
  if (!Array.isArray(list)) return out;
  const taken = new Set<number>();
  let next = 0;
  for (const entry of list) {
    if (!entry || typeof entry !== 'object' || Array.isArray(entry)) continue;
    const raw = entry as Record<string, unknown>;
    const named = Number(raw.community);
    let at = Number.isInteger(named) && named >= 1 && named <= count && !taken.has(named - 1) ? named - 1 : -1;
    if (at < 0) {
      while (taken.has(next)) next++;
      at = next < count ? next : -1;
    }
    if (at < 0) break;
    taken.add(at);
    out[at] = reportOf(raw);
  }
  return out;
}

/** The JSON value between the first `open` and the last `close` of an answer; undefined when there is none. */
function jsonIn(answer: string, open: string, close: string): unknown {
  const start = answer.indexOf(open);
  const end = answer.lastIndexOf(close);
  if (start < 0 || end <= start) return undefined;
  try {
    return JSON.parse(answer.slice(start, end + 1)) as unknown;
  } catch {
    return undefined;
  }
}

/** A report from one answered object, its fields checked one by one; null without a usable title or summary. */
function reportOf(raw: Record<string, unknown>): CommunityReport | null {
  const title = text(raw.title, 200);
  const summary = text(raw.summary, 4000);
  if (!title || !summary) return null;
  const rating = Number(raw.rating ?? raw.rank);
  const findings = (Array.isArray(raw.findings) ? raw.findings : [])
    .map((f: unknown) =>
      typeof f === 'string'
        ? { summary: text(f, 300), explanation: '' }
        : {
            summary: text((f as Record<string, unknown>)?.summary, 300),
            explanation: text((f as Record<string, unknown>)?.explanation, 2000),
          },
    )
    .filter((f) => f.summary)
    .slice(0, 10);
  return { title, summary, rating: Number.isFinite(rating) ? Math.min(10, Math.max(0, rating)) : 0, findings };
}
