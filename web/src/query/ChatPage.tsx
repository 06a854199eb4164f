import { type FormEvent, useEffect, useRef, useState } from 'react';
import { apiUrl, getJson, sendJson } from '../api/client';
import { readEvents } from '../api/sse';
import { QUERY_MODES, type Conversation, type ConversationDetail, type ConversationList, type QueryMode, type Source } from '../api/types';
import { ChunkDialog } from '../ui/ChunkDialog';
import { Empty, ErrorNote, Spinner } from '../ui/feedback';
import { useResource } from '../ui/hooks';
import { navigate } from '../shell/router';
import { Modal } from '../ui/Modal';
import { AnswerText, SourceList } from './answer';

type Message = ConversationDetail['messages'][number];

/** Chat over stored conversations: each turn is answered by retrieval and kept (`/chat/completions`, `/conversations`). */
export function ChatPage() {
  const list = useResource((signal) => getJson<ConversationList>(apiUrl('/api/v1/conversations', {}, { limit: 100 }), signal), []);
  const [current, setCurrent] = useState<string | null>(null);
  const [messages, setMessages] = useState<Message[]>([]);
  const [draft, setDraft] = useState('');
  const [mode, setMode] = useState<QueryMode>('hybrid');
  const [pending, setPending] = useState<{ question: string; answer: string; sources: Source[] } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [chunk, setChunk] = useState<string | null>(null);
  const [removing, setRemoving] = useState<Conversation | null>(null);
  // The answer whose sources the side panel lists: the one picked, else the latest.
  const [shownSources, setShownSources] = useState<string | null>(null);
  const bottom = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!current) {
      setMessages([]);
      return;
    }
    const controller = new AbortController();
    getJson<ConversationDetail>(apiUrl('/api/v1/conversations/{id}', { id: current }), controller.signal)
      .then((c) => {
        setMessages(c.messages);
        setMode(c.mode);
      })
      .catch((err: unknown) => !controller.signal.aborted && setError(err));
    return () => controller.abort();
  }, [current]);

  useEffect(() => {
    // Not returned: scrollIntoView answers a promise in recent browsers, and an effect may only return a cleanup.
    void bottom.current?.scrollIntoView({ block: 'end' });
  }, [messages, pending]);

  const send = async (event: FormEvent) => {
    event.preventDefault();
    const question = draft.trim();
    if (!question) return;
    setDraft('');
    setError(null);
    setPending({ question, answer: '', sources: [] });
    let conversation = current;
    try {
      await readEvents(
        apiUrl('/api/v1/chat/completions'),
        {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ message: question, conversation_id: current, mode, stream: true }),
        },
        (e) => {
          if (typeof e.conversation_id === 'string') conversation = e.conversation_id;
          if (e.type === 'context') setPending((p) => p && { ...p, sources: e.sources as Source[] });
          else if (e.type === 'token') setPending((p) => p && { ...p, answer: p.answer + String(e.content) });
          else if (e.type === 'error') {
            const problem = e.error as { title: string; status: number; detail: string };
            setError(new Error(`${problem.title} (${problem.status}): ${problem.detail}`));
          }
        },
      );
    } catch (err) {
      setError(err);
    }
    if (conversation) {
      const detail = await getJson<ConversationDetail>(apiUrl('/api/v1/conversations/{id}', { id: conversation })).catch(() => null);
      if (detail) setMessages(detail.messages);
      setCurrent(conversation);
    }
    setPending(null);
    list.reload();
  };

  const remove = async (id: string) => {
    try {
      await sendJson('DELETE', apiUrl('/api/v1/conversations/{id}', { id }));
      if (current === id) setCurrent(null);
      list.reload();
    } catch (err) {
      setError(err);
    } finally {
      setRemoving(null);
    }
  };

  const answers = messages.filter((m) => m.role === 'assistant' && m.sources.length > 0);
  const panel = pending?.sources.length
    ? { id: 'pending', sources: pending.sources }
    : (answers.find((m) => m.id === shownSources) ?? answers[answers.length - 1]);

  const openSource = (source: Source) =>
    source.source_type === 'chunk' ? setChunk(source.id) : navigate(`/graph?start=${encodeURIComponent(source.id)}`);

  return (
    <div className="chat-page">
      <aside className="conversations card">
        <button className="primary block" onClick={() => setCurrent(null)}>
          New conversation
        </button>
        {list.loading && !list.data && <Spinner />}
        <ErrorNote error={list.error} />
        {list.data?.conversations.length === 0 && <div className="muted small">No conversations yet.</div>}
        <ul>
          {list.data?.conversations.map((c) => (
            <li key={c.id} className={c.id === current ? 'active' : undefined}>
              <button className="link grow left" onClick={() => setCurrent(c.id)}>
                {c.title || 'Untitled'}
                <div className="muted small">
                  {c.message_count} messages · {c.mode}
                </div>
              </button>
              <button className="link small" aria-label={`Delete the conversation ${c.title || 'Untitled'}`} onClick={() => setRemoving(c)}>
                ×
              </button>
            </li>
          ))}
        </ul>
      </aside>
      <section className="chat card">
        <div className="messages">
          {messages.length === 0 && !pending && (
            <Empty title="Start a conversation">Each answer is retrieved from your documents and kept here.</Empty>
          )}
          {messages.map((m) =>
            m.role === 'assistant' ? (
              <div
                key={m.id}
                className={`message assistant${panel && panel.id === m.id ? ' shown' : ''}`}
                data-testid="chat-answer"
                onFocus={() => setShownSources(m.id)}
                onMouseEnter={() => m.sources.length > 0 && setShownSources(m.id)}
              >
                <AnswerText text={m.content} sources={m.sources} onCite={openSource} />
              </div>
            ) : (
              <div key={m.id} className={`message ${m.role}`}>
                {m.content}
              </div>
            ),
          )}
          {pending && (
            <>
              <div className="message user">{pending.question}</div>
              <div className="message assistant" data-testid="chat-pending">
                {pending.answer ? (
                  <AnswerText text={pending.answer} sources={pending.sources} onCite={openSource} />
                ) : (
                  <Spinner label="Thinking…" />
                )}
              </div>
            </>
          )}
          <div ref={bottom} />
        </div>
        <ErrorNote error={error} onDismiss={() => setError(null)} />
        <form className="row chat-input" onSubmit={(e) => void send(e)}>
          <select value={mode} onChange={(e) => setMode(e.target.value as QueryMode)} aria-label="Mode">
            {QUERY_MODES.map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
          <input className="grow" value={draft} onChange={(e) => setDraft(e.target.value)} placeholder="Message…" aria-label="Message" />
          <button type="submit" className="primary" disabled={!draft.trim() || pending !== null}>
            Send
          </button>
        </form>
      </section>
      <aside className="chat-sources card" aria-label="Sources of the answer">
        {panel ? (
          <SourceList sources={panel.sources} onOpen={openSource} />
        ) : (
          <div className="muted small">The chunks and entities an answer cites are listed here.</div>
        )}
      </aside>
      {chunk && <ChunkDialog chunkId={chunk} onClose={() => setChunk(null)} />}
      {removing && (
        <Modal label="Delete conversation" onClose={() => setRemoving(null)} className="narrow" testId="delete-conversation">
          <h2>Delete “{removing.title || 'Untitled'}”?</h2>
          <p>Its {removing.message_count} messages are deleted with it. This cannot be undone.</p>
          <div className="row end">
            <button onClick={() => setRemoving(null)}>Cancel</button>
            <button className="danger" onClick={() => void remove(removing.id)}>
              Delete
            </button>
          </div>
        </Modal>
      )}
    </div>
  );
}
