import { type FormEvent, useRef, useState } from 'react';
import { apiUrl, sendJson } from '../api/client';
import { readEvents } from '../api/sse';
import { QUERY_MODES, type QueryBody, type QueryMode, type QueryResult, type Source } from '../api/types';
import { ChunkDialog } from '../ui/ChunkDialog';
import { Empty, ErrorNote, Spinner } from '../ui/feedback';
import { navigate } from '../shell/router';
import { formatDuration } from '../ui/format';
import { AnswerText, SourceList } from './answer';

interface Options {
  mode: QueryMode;
  topK: number;
  enableRerank: boolean;
  rerankTopK: number;
  contextOnly: boolean;
}

type Phase = 'idle' | 'retrieving' | 'streaming' | 'done' | 'failed' | 'stopped';

interface DoneStats {
  retrieval_time_ms: number;
  generation_time_ms: number;
  total_time_ms: number;
  tokens_used: number;
  tokens_per_second: number;
}

/** Ask a question in any mode and watch the answer stream in (`/query/stream` v2), its sources beside it. */
export function QueryPage() {
  const [text, setText] = useState('');
  const [options, setOptions] = useState<Options>({ mode: 'hybrid', topK: 20, enableRerank: true, rerankTopK: 5, contextOnly: false });
  const [phase, setPhase] = useState<Phase>('idle');
  const [answer, setAnswer] = useState('');
  const [context, setContext] = useState<string | null>(null);
  const [sources, setSources] = useState<Source[]>([]);
  const [stats, setStats] = useState<DoneStats | null>(null);
  const [model, setModel] = useState('');
  const [tokens, setTokens] = useState(0);
  const [error, setError] = useState<unknown>(null);
  const [chunk, setChunk] = useState<Source | null>(null);
  const controller = useRef<AbortController | null>(null);

  const body = (): QueryBody => ({
    query: text,
    mode: options.mode,
    max_entities: options.topK,
    max_relationships: options.topK,
    max_chunks: options.topK,
    enable_rerank: options.enableRerank,
    rerank_top_k: options.rerankTopK,
    context_only: options.contextOnly || undefined,
  });

  const ask = async (event: FormEvent) => {
    event.preventDefault();
    controller.current?.abort();
    const mine = new AbortController();
    controller.current = mine;
    setAnswer('');
    setContext(null);
    setSources([]);
    setStats(null);
    setTokens(0);
    setError(null);
    setPhase('retrieving');
    try {
      if (options.contextOnly) {
        const result = await sendJson<QueryResult>('POST', apiUrl('/api/v1/query'), body());
        setSources(result.sources);
        setContext(result.context ?? '');
        setStats(result.stats);
        setModel(`${result.stats.llm_provider}/${result.stats.llm_model}`);
        setPhase('done');
        return;
      }
      let failed = false;
      await readEvents(
        apiUrl('/api/v1/query/stream'),
        {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ ...body(), stream_format: 'v2' }),
          signal: mine.signal,
        },
        (e) => {
          if (e.type === 'context') {
            setSources(e.sources as Source[]);
            setPhase('streaming');
          } else if (e.type === 'token') {
            setAnswer((a) => a + String(e.content));
            setTokens((n) => n + 1);
          } else if (e.type === 'done') {
            setStats(e.stats as DoneStats);
            setModel(`${String(e.llm_provider)}/${String(e.llm_model)}`);
          } else if (e.type === 'error') {
            const problem = e.error as { title: string; status: number; detail: string };
            failed = true;
            setError(new Error(`${problem.title} (${problem.status}): ${problem.detail}`));
          }
        },
      );
      setPhase(failed ? 'failed' : 'done');
    } catch (err) {
      if (mine.signal.aborted) {
        setPhase('stopped');
        return;
      }
      setError(err);
      setPhase('failed');
    }
  };

  const busy = phase === 'retrieving' || phase === 'streaming';
  // A chunk opens in place; an entity opens in the graph explorer.
  const openSource = (source: Source) =>
    source.source_type === 'chunk' ? setChunk(source) : navigate(`/graph?start=${encodeURIComponent(source.id)}`);
  const set = <K extends keyof Options>(key: K, value: Options[K]) => setOptions({ ...options, [key]: value });

  return (
    <div className="two-columns query-page">
      <section className="column-main">
        <form className="card query-form" onSubmit={(e) => void ask(e)}>
          <textarea
            value={text}
            onChange={(e) => setText(e.target.value)}
            placeholder="Ask a question about your documents…"
            aria-label="Question"
            rows={3}
            maxLength={8000}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && (e.metaKey || e.ctrlKey)) e.currentTarget.form?.requestSubmit();
            }}
          />
          <div className="row wrap">
            <label>
              Mode
              <select value={options.mode} onChange={(e) => set('mode', e.target.value as QueryMode)} aria-label="Mode">
                {QUERY_MODES.map((m) => (
                  <option key={m}>{m}</option>
                ))}
              </select>
            </label>
            <label title="Entities, relationships and chunks retrieved (each)">
              Top k
              <input
                type="number"
                min={1}
                max={200}
                value={options.topK}
                onChange={(e) => set('topK', Number(e.target.value))}
                aria-label="Top k"
              />
            </label>
            <label>
              <input type="checkbox" checked={options.enableRerank} onChange={(e) => set('enableRerank', e.target.checked)} /> Rerank
            </label>
            <label>
              keep
              <input
                type="number"
                min={1}
                max={100}
                value={options.rerankTopK}
                disabled={!options.enableRerank}
                onChange={(e) => set('rerankTopK', Number(e.target.value))}
                aria-label="Rerank top k"
              />
            </label>
            <label>
              <input type="checkbox" checked={options.contextOnly} onChange={(e) => set('contextOnly', e.target.checked)} /> Context only
            </label>
            <span className="grow" />
            {busy ? (
              <button type="button" onClick={() => controller.current?.abort()}>
                Stop
              </button>
            ) : null}
            <button type="submit" className="primary" disabled={!text.trim() || busy}>
              Ask
            </button>
          </div>
        </form>
        <ErrorNote error={error} />
        {phase === 'idle' && (
          <Empty title="Ask something">
            The answer streams in here, with the chunks and entities it was built from beside it. Add documents first on the Documents page.
          </Empty>
        )}
        {phase !== 'idle' && (
          <div className="card answer-card">
            {phase === 'retrieving' && <Spinner label="Retrieving context…" />}
            {context !== null ? (
              <pre className="context-text" data-testid="context">
                {context || 'No context was retrieved.'}
              </pre>
            ) : (
              <div className="answer" data-testid="answer" data-state={phase} data-tokens={tokens}>
                <AnswerText text={answer} sources={sources} onCite={openSource} />
                {phase === 'streaming' && <span className="caret" aria-hidden />}
              </div>
            )}
            {stats && (
              <div className="muted small stats" data-testid="stats">
                retrieval {formatDuration(stats.retrieval_time_ms)} · generation {formatDuration(stats.generation_time_ms)} · total{' '}
                {formatDuration(stats.total_time_ms)} · {stats.tokens_used} tokens · {stats.tokens_per_second.toFixed(1)} tokens/s · {model}
              </div>
            )}
            {phase === 'stopped' && <div className="muted small">Stopped.</div>}
          </div>
        )}
      </section>
      <aside className="column-side">
        {(sources.length > 0 || phase === 'done') && <SourceList sources={sources} onOpen={openSource} />}
      </aside>
      {chunk?.source_type === 'chunk' && <ChunkDialog chunkId={chunk.id} onClose={() => setChunk(null)} />}
    </div>
  );
}
