import DOMPurify from 'dompurify';
import { Marked, type TokenizerAndRendererExtension } from 'marked';

/** What a citation `[n]` of an answer points at: its title, or nothing when the answer cites no such source. */
export type CiteLookup = (reference: number) => { title: string } | undefined;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]);

/**
 * A model's answer as HTML: Markdown (GitHub's flavour: lists, headings, tables, code) with any raw HTML shown as
 * text, the `[n]` of known sources as links to them, and the result sanitised once more before it reaches the page.
 */
export function answerHtml(text: string, cite: CiteLookup): string {
  const citation: TokenizerAndRendererExtension = {
    name: 'citation',
    level: 'inline',
    start: (src) => src.match(/\[\d+\]/)?.index,
    tokenizer(src) {
      const match = /^\[(\d+)\]/.exec(src);
      if (match && cite(Number(match[1]))) return { type: 'citation', raw: match[0], reference: Number(match[1]) };
      return undefined;
    },
    renderer(token) {
      const reference = token.reference as number;
      const title = cite(reference)?.title ?? '';
      return `<a class="cite" href="#source-${reference}" data-cite="${reference}" title="${escapeHtml(title)}">${reference}</a>`;
    },
  };
  const marked = new Marked({
    gfm: true,
    async: false,
    renderer: { html: ({ text: html }) => escapeHtml(html) },
    extensions: [citation],
  });
  const html = marked.parse(text) as string;
  return DOMPurify.sanitize(html, { ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|#)/i });
}
