import { sleep, throwIfAborted } from '../../domain/abort';
import { nextTurn, TimeSlicer } from '../../domain/turns';
import { COMPLETION_MARKER, FIELD_DELIMITER } from '../../prompts/record-format';
import type { ChatMessage, Completion, CompletionOptions, FinishReason, LlmProvider, TokenUsage } from '../ports';
import { hostileAnswer, hostileBehaviourOf } from './hostile';
import type { PromptTask } from '../tasks';
import { countTokensInSlices, tokenLayout } from '../tokens';
import { extractRecords, gleanRecords } from './extract';
import { communityReportJson } from './report';
import { extractiveAnswer, keywordsJson, summarize } from './respond';
import { judgeSameEntity } from './resolve';

/**
 * The offline, deterministic LLM (docs/architecture.md §7). It answers in the format of `options.task`.
 *
 * Prompt convention: the text to work on (chunk, question, description fragments) follows the last line
 * equal to `---TEXT---` in the latest user message that has one; without the marker it is the whole last
 * user message. Keywords and answers also accept a last `Question:` line as the start of the question.
 * For answers, everything else in the conversation is the context.
 *
 * Without `options.task` (a prompt that came over HTTP, e.g. through the OpenAI-compatible API) the task is read
 * from the prompt as a real model would: JSON mode asks for keywords, a system message describing the record
 * format asks for extraction (gleaning when earlier output follows), anything else for an answer. Answers stop at
 * `maxTokens` tokens and before the first `stop` sequence, like a real model's.
 */

export const MOCK_TEXT_MARKER = '---TEXT---';

export class MockLlm implements LlmProvider {
  constructor(
    readonly provider = 'mock',
    readonly model = 'mock-llm',
    /** Simulated latency per call: a number, or read at every call (benchmarks change it between phases). */
    private readonly latencyMs: number | (() => number) = 0,
    /** Pause between streamed fragments, so that a stream can be watched arriving. */
    private readonly tokenDelayMs = 0,
  ) {}

  private latency(): number {
    return typeof this.latencyMs === 'number' ? this.latencyMs : this.latencyMs();
  }

  /** The simulated latency; without one, still a later turn of the event loop, as a network answer would be. */
  private async wait(signal?: AbortSignal): Promise<void> {
    const ms = this.latency();
    await (ms > 0 ? sleep(ms, signal) : nextTurn());
    throwIfAborted(signal);
  }

  async complete(messages: ChatMessage[], options: CompletionOptions = {}): Promise<Completion> {
    await this.wait(options.signal);
    const { text, finish_reason } = this.respond(messages, options);
    return { text, usage: await usageOf(messages, text), finish_reason };
  }

  /** The answer, as the model's behaviour (./hostile.ts) makes it. */
  private respond(messages: ChatMessage[], options: CompletionOptions): { text: string; finish_reason: FinishReason } {
    const behaviour = hostileBehaviourOf(this.model);
    const good = respond(messages, options);
    if (!behaviour) return good;
    return hostileAnswer(behaviour, taskOf(messages, options), messages, good.text, options.maxTokens);
  }

  async *stream(messages: ChatMessage[], options: CompletionOptions = {}): AsyncGenerator<string, TokenUsage, void> {
    // Latency before the first token only, like a real model's time to first token.
    await this.wait(options.signal);
    const { text } = this.respond(messages, options);
    let first = true;
    for (const fragment of text.match(/\S+\s*|\s+/g) ?? []) {
      if (!first && this.tokenDelayMs > 0) await sleep(this.tokenDelayMs, options.signal);
      first = false;
      throwIfAborted(options.signal);
      yield fragment;
    }
    return await usageOf(messages, text);
  }
}

/** Token counts as a provider reports them; a long prompt (a large summary) is counted in stretches. */
async function usageOf(messages: ChatMessage[], text: string): Promise<TokenUsage> {
  const slicer = new TimeSlicer();
  let input_tokens = 0;
  for (const m of messages) input_tokens += await countTokensInSlices(m.content, slicer);
  return { input_tokens, output_tokens: await countTokensInSlices(text, slicer) };
}

/** Splits a message at its last `---TEXT---` line. */
export function splitAtMarker(content: string): { before: string; text: string; marked: boolean } {
  const lines = content.split(/\r?\n/);
  for (let i = lines.length - 1; i >= 0; i--) {
    if (lines[i].trim() === MOCK_TEXT_MARKER) {
      return { before: lines.slice(0, i).join('\n'), text: lines.slice(i + 1).join('\n'), marked: true };
    }
  }
  return { before: '', text: content, marked: false };
}

function workingMessage(messages: ChatMessage[]): ChatMessage | undefined {
  const users = messages.filter((m) => m.role === 'user');
  return [...users].reverse().find((m) => splitAtMarker(m.content).marked) ?? users[users.length - 1];
}

function respond(messages: ChatMessage[], options: CompletionOptions): { text: string; finish_reason: FinishReason } {
  const task = taskOf(messages, options);
  const output = respondTo(task, messages);
  if (task !== 'answer' && task !== 'chat') return { text: output, finish_reason: 'stop' };
  const text = limitAnswer(output, options);
  return { text, finish_reason: text.length < output.length && !options.stop?.length ? 'length' : 'stop' };
}

/** The task a prompt asks for: the caller's word when given, else read from the prompt itself. */
export function taskOf(messages: ChatMessage[], options: CompletionOptions): PromptTask {
  if (options.task) return options.task;
  if (options.json) return 'keywords';
  const system = messages.find((m) => m.role === 'system')?.content ?? '';
  if (system.includes(FIELD_DELIMITER) && system.includes(COMPLETION_MARKER)) {
    return messages.some((m) => m.role === 'assistant') ? 'glean' : 'extract';
  }
  return 'answer';
}

/** An answer cut before the first stop sequence and after `maxTokens` tokens. */
function limitAnswer(text: string, options: CompletionOptions): string {
  let out = text;
  for (const stop of options.stop ?? []) {
    const at = stop ? out.indexOf(stop) : -1;
    if (at >= 0) out = out.slice(0, at);
  }
  if (options.maxTokens !== undefined && options.maxTokens >= 0) {
    const layout = tokenLayout(out);
    if (layout.count > options.maxTokens) out = out.slice(0, layout.starts[options.maxTokens]);
  }
  return out;
}

function respondTo(task: PromptTask, messages: ChatMessage[]): string {
  const working = workingMessage(messages);
  const text = working ? splitAtMarker(working.content).text : '';
  switch (task) {
    case 'extract':
      return extractRecords(text);
    case 'glean':
      return gleanRecords(
        text,
        messages.filter((m) => m.role === 'assistant').map((m) => m.content),
      );
    case 'keywords':
      return keywordsJson(afterQuestionLabel(text).question);
    case 'summarize':
      return summarize(text);
    case 'resolve':
      return judgeSameEntity(text);
    case 'community_report':
      return communityReportJson(text);
    default:
      return answer(messages);
  }
}

function answer(messages: ChatMessage[]): string {
  const lastUser = messages.map((m) => m.role).lastIndexOf('user');
  if (lastUser < 0) return extractiveAnswer('', messages.map((m) => m.content).join('\n'));
  const marked = splitAtMarker(messages[lastUser].content);
  const labelled = afterQuestionLabel(marked.text);
  const question = labelled.question;
  const before = [marked.before, labelled.before].filter(Boolean).join('\n');
  const context = [...messages.filter((_, i) => i !== lastUser).map((m) => m.content), before].join('\n');
  return extractiveAnswer(question, context);
}

/** Without the marker, a last `Question:` / `Query:` line also starts the question (common prompt layout). */
function afterQuestionLabel(text: string): { before: string; question: string } {
  const matches = [...text.matchAll(/^[ \t]*(?:question|query)[ \t]*:[ \t]*/gim)];
  const last = matches[matches.length - 1];
  if (!last) return { before: '', question: text };
  return { before: text.slice(0, last.index), question: text.slice(last.index + last[0].length) };
}
