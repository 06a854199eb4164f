/**
 * The mock provider behind LightRAG, for the side-by-side benchmark (scripts/bench/side-by-side.ts): a loopback
 * HTTP server that reads LightRAG's prompts (extraction, gleaning, description summary, keywords), asks this
 * project's mock provider the same question in this project's prompt format, and answers in LightRAG's
 * format. Both engines thus receive identical extractions, gleanings, summaries and keywords. Embeddings are
 * the same 256-dim hashing embedding. Every call waits the same simulated latency; LightRAG's own limits
 * (llm_model_max_async, embedding_func_max_async) bound its concurrency, as SERVICE_LLM_CONCURRENCY bounds ours.
 *
 *   POST /llm    {prompt, system_prompt, history}  -> {text, kind}
 *   POST /embed  {texts}                           -> {vectors}
 *   POST /latency {ms}                             -> sets the simulated latency (queries are timed without it)
 *   GET  /stats                                    -> calls by kind, texts embedded
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { extractionPrompt, gleaningPrompt } from '../../src/ingest/extract/prompt';
import { summaryPrompt } from '../../src/ingest/merge/summary-prompt';
import { MockEmbeddings, MockLlm } from '../../src/llm/mock';
import type { ChatMessage } from '../../src/llm/ports';
import { COMPLETION_MARKER, FIELD_DELIMITER } from '../../src/prompts/record-format';
import { keywordsPrompt } from '../../src/retrieval/prompts/keywords';

const LIGHTRAG_DELIMITER = '<|#|>';
const LIGHTRAG_COMPLETE = '<|COMPLETE|>';
/** Our pipeline writes summaries of at most this many words (src/ingest/merge/summary.ts). */
const SUMMARY_MAX_WORDS = 200;

export interface BridgeStats {
  calls: Record<string, number>;
  embeddingCalls: number;
  textsEmbedded: number;
}

export interface Bridge {
  url: string;
  stats(): BridgeStats;
  /** The counts when the latency was last set (the driver sets it to 0 once ingestion is over). */
  ingestStats(): BridgeStats | null;
  close(): Promise<void>;
}

interface LlmRequest {
  prompt: string;
  system_prompt?: string | null;
  history?: ChatMessage[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The text between the Input Text fence of LightRAG's extraction prompt. */
function inputText(...texts: string[]): string | null {
  for (const t of texts) {
    const m = /---Input Text---\s*```\r?\n([\s\S]*?)\r?\n```\s*\n+---Output---/.exec(t);
    if (m) return m[1];
  }
  return null;
}

/** Our record format to LightRAG's: the same fields in the same order, other delimiters. */
function toLightRag(raw: string): string {
  return raw.split(FIELD_DELIMITER).join(LIGHTRAG_DELIMITER).split(COMPLETION_MARKER).join(LIGHTRAG_COMPLETE);
}

function summaryInput(prompt: string): { kind: 'entity' | 'relationship'; name: string; fragments: string[] } {
  const name = /(Entity|Relation(?:ship)?) Name: (.*)/.exec(prompt);
  const list = /Description List:\s*```\r?\n([\s\S]*?)\r?\n```/.exec(prompt)?.[1] ?? '';
  const fragments = list
    .split(/\r?\n/)
    .map((line) => {
      try {
        const parsed = JSON.parse(line) as Record<string, unknown>;
        return String(parsed.Description ?? parsed.description ?? Object.values(parsed)[0] ?? '');
      } catch {
        return line;
      }
    })
    .filter((f) => f.trim());
  return { kind: name?.[1] === 'Entity' ? 'entity' : 'relationship', name: name?.[2]?.trim() ?? '', fragments };
}

export async function startBridge(options: { latencyMs: number }): Promise<Bridge> {
  let latencyMs = options.latencyMs;
  const llm = new MockLlm();
  const embeddings = new MockEmbeddings();
  const stats: BridgeStats = { calls: {}, embeddingCalls: 0, textsEmbedded: 0 };
  let atLatencyChange: BridgeStats | null = null;
  const count = (kind: string) => (stats.calls[kind] = (stats.calls[kind] ?? 0) + 1);

  const answer = async ({ prompt, system_prompt, history = [] }: LlmRequest): Promise<{ kind: string; text: string }> => {
    const system = system_prompt ?? '';
    if (/extracting entities and relationships/i.test(system) || /---Input Text---/.test(prompt)) {
      const text = inputText(prompt, ...history.map((m) => m.content));
      if (text === null) return { kind: 'unknown', text: LIGHTRAG_COMPLETE };
      const first = (await llm.complete(extractionPrompt(text), { task: 'extract' })).text;
      if (history.length === 0) return { kind: 'extract', text: toLightRag(first) };
      const more = (await llm.complete(gleaningPrompt(text, [first]), { task: 'glean' })).text;
      return { kind: 'glean', text: toLightRag(more) };
    }
    if (/synthesize a list of descriptions/i.test(prompt)) {
      const { kind, name, fragments } = summaryInput(prompt);
      const out = await llm.complete(summaryPrompt({ kind, name }, fragments, SUMMARY_MAX_WORDS), { task: 'summarize' });
      return { kind: 'summarize', text: out.text };
    }
    if (/keyword extractor/i.test(prompt) || /keyword extractor/i.test(system)) {
      const query = /User Query: ([\s\S]*?)\n\s*\n---Output---/.exec(prompt)?.[1]?.trim() ?? prompt;
      const out = await llm.complete(keywordsPrompt(query, []), { task: 'keywords', json: true });
      return { kind: 'keywords', text: out.text };
    }
    return { kind: 'other', text: 'I do not know.' };
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        try {
          const body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>) : {};
          let out: unknown;
          if (req.url === '/llm') {
            await sleep(latencyMs);
            const a = await answer(body as unknown as LlmRequest);
            count(a.kind);
            out = a;
          } else if (req.url === '/embed') {
            await sleep(latencyMs);
            const texts = body.texts as string[];
            stats.embeddingCalls += 1;
            stats.textsEmbedded += texts.length;
            out = { vectors: await embeddings.embed(texts) };
          } else if (req.url === '/latency') {
            latencyMs = Number(body.ms);
            atLatencyChange = structuredClone(stats);
            out = { latency_ms: latencyMs };
          } else if (req.url === '/stats') out = stats;
          else {
            res.writeHead(404).end();
            return;
          }
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out));
        } catch (err) {
          res.writeHead(500, { 'content-type': 'text/plain' }).end(String(err));
        }
      })();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stats: () => structuredClone(stats),
    ingestStats: () => structuredClone(atLatencyChange),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
