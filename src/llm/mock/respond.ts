import { memoByText } from '../../domain/text-memo';
import { cap } from './extract';
import { analyse, contentWords, splitSentences } from './text';

/** Keywords, summaries and extractive answers of the mock provider. */

export const NO_CONTEXT_PHRASE = 'No context was retrieved';
const SUMMARY_MAX_CHARS = 600;
const ANSWER_SENTENCES = 3;

/** `{"high_level_keywords": [...], "low_level_keywords": [...]}` as the keyword prompt asks. */
export function keywordsJson(question: string): string {
  const low = analyse(question).candidates.map((c) => c.name);
  const words = [...new Set(contentWords(question))];
  if (low.length === 0) low.push(...words.filter((w) => w.length >= 4).slice(0, 5));
  const lowWords = new Set(contentWords(low.join(' ')));
  const themes = words.filter((w) => !lowWords.has(w));
  let high = themes.filter((w) => w.length >= 7);
  if (high.length === 0)
    high = [...(themes.length > 0 ? themes : words)].sort((a, b) => b.length - a.length || a.localeCompare(b)).slice(0, 3);
  return JSON.stringify({ high_level_keywords: high.slice(0, 5), low_level_keywords: low.slice(0, 8) });
}

/** A shortened join of the description fragments: sentences deduplicated, about 600 characters at most. */
export function summarize(fragmentsText: string): string {
  const seen = new Set<string>();
  const kept: string[] = [];
  let length = 0;
  for (const fragment of fragmentsText.split(/<SEP>|\r?\n/)) {
    const line = fragment.replace(/^\s*(?:[-*•]|\d+[.)])\s+/, '').trim();
    for (const sentence of splitSentences(line)) {
      const norm = sentence
        .toLowerCase()
        .replace(/[^\p{L}\p{N}]+/gu, ' ')
        .trim();
      if (!norm || seen.has(norm)) continue;
      seen.add(norm);
      if (kept.length > 0 && length + sentence.length + 1 > SUMMARY_MAX_CHARS) return kept.join(' ');
      kept.push(sentence);
      length += sentence.length + 1;
    }
  }
  return cap(kept.join(' '), SUMMARY_MAX_CHARS);
}

/**
 * The same chunks and descriptions come back in query after query's context: their sentences, and each sentence's
 * content words, are remembered (about 2 million characters each).
 */
const MEMO_CHARS = 2_000_000;
const sentencesOf = memoByText(splitSentences, MEMO_CHARS, (sentences) => sentences.reduce((n, s) => n + s.length, 0));
const wordsOf = memoByText(
  (sentence) => new Set(contentWords(sentence)),
  MEMO_CHARS,
  (words) => [...words].reduce((n, w) => n + w.length, 0),
);

interface ContextSentence {
  text: string;
  ref: string | null;
  order: number;
}

/**
 * The context sentences with most question words, in context order, each cited by the reference id of
 * its block: lines starting `[n]`, or JSON lines carrying `reference_id`.
 */
export function extractiveAnswer(question: string, context: string): string {
  const q = question.trim() || 'the question';
  if (context.includes(NO_CONTEXT_PHRASE)) {
    return `The knowledge base has no information about this question: "${cap(q, 200)}".`;
  }
  if (!context.trim()) return `I have no context to answer from. You asked: "${cap(q, 200)}".`;
  const wanted = new Set(contentWords(q));
  const scored = contextSentences(contextSection(context))
    .map((s) => ({ s, score: overlap(wanted, s.text) }))
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score || a.s.order - b.s.order)
    .slice(0, ANSWER_SENTENCES)
    .map((x) => x.s)
    .sort((a, b) => a.order - b.order);
  if (scored.length === 0) {
    return `The retrieved context does not answer this question: "${cap(q, 200)}".`;
  }
  return scored.map((s) => (s.ref ? `${s.text} [${s.ref}]` : s.text)).join(' ');
}

/** Only what follows a `---Context---` heading, when there is one: the role and rules are not sources. */
function contextSection(text: string): string {
  const headings = [...text.matchAll(/^[ \t]*-{3,}[ \t]*context[ \t]*-{3,}[ \t]*$/gim)];
  const last = headings[headings.length - 1];
  return last ? text.slice(last.index + last[0].length) : text;
}

function overlap(wanted: Set<string>, sentence: string): number {
  let n = 0;
  for (const w of wordsOf(sentence)) if (wanted.has(w)) n++;
  return n;
}

function contextSentences(context: string): ContextSentence[] {
  const out: ContextSentence[] = [];
  let ref: string | null = null;
  for (const rawLine of context.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (!line || /^(#{1,6}\s|[-=`]{3,})/.test(line)) continue;
    const bracket = /^\[(\w+)\]\s*(.*)$/.exec(line);
    const records = bracket ? [{ ref: bracket[1], text: bracket[2] }] : (parseJsonRecords(line) ?? [{ ref: null, text: line }]);
    for (const record of records) {
      ref = record.ref ?? ref;
      for (const sentence of sentencesOf(record.text)) out.push({ text: sentence, ref, order: out.length });
    }
  }
  return out;
}

/** `{"reference_id": "1", "content": "..."}` lines (or arrays of them), as LightRAG-style contexts carry. */
function parseJsonRecords(line: string): Array<{ ref: string | null; text: string }> | null {
  if (!/^[{[]/.test(line)) return null;
  let value: unknown;
  try {
    value = JSON.parse(line.replace(/,$/, ''));
  } catch {
    return null;
  }
  const items = Array.isArray(value) ? value : [value];
  const records: Array<{ ref: string | null; text: string }> = [];
  for (const item of items) {
    if (!item || typeof item !== 'object') continue;
    const r = item as Record<string, unknown>;
    const ref = r.reference_id ?? r.ref;
    const text = [r.content, r.description, r.text].find((v) => typeof v === 'string') as string | undefined;
    records.push({ ref: ref === undefined || ref === null || ref === '' ? null : String(ref), text: text ?? '' });
  }
  return records.length > 0 ? records : null;
}
