import type { ChatMessage, Completion, CompletionOptions, FinishReason, LlmProvider, StreamEnd } from './ports';

/**
 * What is left of a model's output once its reasoning is taken out. Reasoning models write their thoughts
 * inline (`<think>…</think>`, also `<thinking>` and `<reasoning>`), or in a field of their own that LangChain
 * hands over as `additional_kwargs.reasoning_content` (OpenAI-compatible servers) or `thinking` (Ollama); the
 * fields never reach the text, the inline blocks are cut here. A block left open (the output was cut inside
 * it) takes everything after its opening; a closing tag without an opening one (the chat template opened the
 * block in the prompt) takes everything before it.
 */

const OPEN = /<(think|thinking|reasoning)>/i;
const BLOCK = /<(think|thinking|reasoning)>[\s\S]*?<\/\1>/gi;
const CLOSE = /<\/(?:think|thinking|reasoning)>/gi;

export function stripReasoning(text: string): string {
  if (!text.includes('<')) return text;
  let out = text.replace(BLOCK, '');
  const closings = [...out.matchAll(CLOSE)];
  const lastClose = closings[closings.length - 1];
  if (lastClose) out = out.slice(lastClose.index + lastClose[0].length);
  const open = OPEN.exec(out);
  if (open) out = out.slice(0, open.index);
  return out === text ? text : out.replace(/^\s+/, '');
}

/** Streamed fragments with reasoning blocks held back; a tag split across fragments is recognised. */
export class ReasoningFilter {
  private pending = '';
  private inside = false;
  private started = false;

  /** The visible text this fragment completes. */
  push(fragment: string): string {
    this.pending += fragment;
    let out = '';
    for (;;) {
      if (this.inside) {
        const close = /<\/(?:think|thinking|reasoning)>/i.exec(this.pending);
        if (!close) {
          this.pending = this.pending.slice(Math.max(0, this.pending.length - 16));
          return this.emit(out);
        }
        this.pending = this.pending.slice(close.index + close[0].length);
        this.inside = false;
        continue;
      }
      const open = OPEN.exec(this.pending);
      if (open) {
        out += this.pending.slice(0, open.index);
        this.pending = this.pending.slice(open.index + open[0].length);
        this.inside = true;
        continue;
      }
      // A tag may be starting at the end: keep the tail that could still become one.
      const lt = this.pending.lastIndexOf('<');
      const keep = lt >= 0 && this.pending.length - lt < 12 ? this.pending.length - lt : 0;
      out += this.pending.slice(0, this.pending.length - keep);
      this.pending = this.pending.slice(this.pending.length - keep);
      return this.emit(out);
    }
  }

  /** What is left at the end of the stream (nothing of an unclosed block). */
  end(): string {
    const rest = this.inside ? '' : this.pending;
    this.pending = '';
    return this.emit(rest);
  }

  /** Whitespace between a block and the answer is not the answer's. */
  private emit(text: string): string {
    if (this.started) return text;
    const trimmed = text.replace(/^\s+/, '');
    if (trimmed) this.started = true;
    return trimmed;
  }
}

/** The provider with reasoning taken out of every completion and stream. */
export function withOutputHygiene(inner: LlmProvider): LlmProvider {
  return {
    provider: inner.provider,
    model: inner.model,
    async complete(messages: ChatMessage[], options?: CompletionOptions): Promise<Completion> {
      const completion = await inner.complete(messages, options);
      const text = stripReasoning(completion.text);
      return text === completion.text ? completion : { ...completion, text };
    },
    async *stream(messages: ChatMessage[], options?: CompletionOptions): AsyncGenerator<string, StreamEnd, void> {
      const filter = new ReasoningFilter();
      const fragments = inner.stream(messages, options);
      let finished = false;
      try {
        for (;;) {
          const next = await fragments.next();
          if (next.done) {
            finished = true;
            const rest = filter.end();
            if (rest) yield rest;
            return next.value;
          }
          const visible = filter.push(next.value);
          if (visible) yield visible;
        }
      } finally {
        // A consumer that stopped reading ends the provider's stream too.
        if (!finished) await fragments.return?.(undefined as unknown as StreamEnd);
      }
    },
  };
}

/** The finish reason a provider reported (`finish_reason` of OpenAI-compatible APIs, `done_reason` of Ollama). */
export function finishReasonOf(metadata: Record<string, unknown> | undefined): FinishReason | undefined {
  const raw = metadata?.finish_reason ?? metadata?.done_reason;
  if (typeof raw !== 'string') return undefined;
  if (raw === 'length' || raw === 'max_tokens') return 'length';
  return 'stop';
}

/**
 * Text without code fences around it: models asked for plain records or JSON often fence them. Fence lines
 * are removed wherever they stand; what they held stays.
 */
export function unfence(text: string): string {
  return text.includes('```') ? text.replace(/^[ \t]*```[\w-]*[ \t]*$/gm, '') : text;
}
