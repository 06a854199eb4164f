/**
 * The community report prompt: the members of one community (entities, then the relationships among them, one
 * per line after `---TEXT---`) become a JSON report:
 *
 *   {"title": "...", "summary": "...", "rating": 0-10, "findings": [{"summary": "...", "explanation": "..."}]}
 *
 * Lines of the text are `entity<|>NAME<|>TYPE<|>DESCRIPTION` and `relation<|>SOURCE<|>TARGET<|>DESCRIPTION`.
 * The mock provider reads exactly these lines, so the real parser runs in every mode.
 */

export const COMMUNITY_REPORT_PROMPT_VERSION = 1;
export const REPORT_TEXT_MARKER = '---TEXT---';
const DELIMITER = '<|>';

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

function flat(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/<\|>/g, ' ').trim();
}

export function reportPrompt(entities: ReportEntity[], relations: ReportRelation[]): Array<{ role: 'system' | 'user'; content: string }> {
  const lines = [
    ...entities.map((e) => ['entity', flat(e.name), flat(e.entity_type), flat(e.description)].join(DELIMITER)),
    ...relations.map((r) => ['relation', flat(r.source), flat(r.target), flat(r.description)].join(DELIMITER)),
  ];
  const user = [`Community of ${entities.length} entities and ${relations.length} relationships.`, REPORT_TEXT_MARKER, ...lines].join('\n');
  return [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: user },
  ];
}

/** The entity and relation lines of a prompt's text, as written by `reportPrompt`. */
export function parseReportText(text: string): { entities: ReportEntity[]; relations: ReportRelation[] } {
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
  const start = answer.indexOf('{');
  const end = answer.lastIndexOf('}');
  if (start < 0 || end <= start) return null;
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(answer.slice(start, end + 1)) as Record<string, unknown>;
  } catch {
    return null;
  }
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
