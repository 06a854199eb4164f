import { parseBatchReportText, parseReportText, type ReportMembers } from '../../prompts/community-report';
import { summarize } from './respond';

/**
 * The mock's community report: the two most connected entities name it, the summary joins the first sentences
 * of the entity descriptions, each finding is one relationship, and the rating grows with the community's size.
 * A batched prompt gets `{"reports": [...]}`, each community's report as its own prompt would have had it.
 * Deterministic: the same text gives the same report.
 */
export function communityReportJson(text: string): string {
  const batch = parseBatchReportText(text);
  if (!batch) return JSON.stringify(reportOf(parseReportText(text)));
  return JSON.stringify({ reports: batch.map((members, i) => ({ community: i + 1, ...reportOf(members) })) });
}

function reportOf({ entities, relations }: ReportMembers) {
  const links = new Map<string, number>();
  for (const r of relations) for (const end of [r.source, r.target]) links.set(end, (links.get(end) ?? 0) + 1);
  const ranked = [...entities].sort((a, b) => (links.get(b.name) ?? 0) - (links.get(a.name) ?? 0) || a.name.localeCompare(b.name));
  const names = ranked.slice(0, 2).map((e) => e.name);
  const title = names.length ? `Community of ${names.join(' and ')}` : 'Empty community';
  const lead = ranked.slice(0, 3).map((e) => `${e.name} (${e.entity_type}): ${e.description}`);
  const summary = summarize(lead.join('\n')) || `${entities.length} related entities.`;
  const findings = relations.slice(0, 5).map((r) => ({ summary: `${r.source} and ${r.target}`, explanation: r.description }));
  const rating = Math.min(10, Math.round((Math.log2(entities.length + relations.length + 1) + Number.EPSILON) * 10) / 10);
  return { title, summary, rating, findings };
}
