import { answerPrompt, NO_CONTEXT, recentHistory, renderPrompt } from '../../src/retrieval/prompts/answer';
import { keywordsPrompt, parseKeywords } from '../../src/retrieval/prompts/keywords';
import { fallbackKeywords } from '../../src/retrieval/steps/keywords';

describe('keyword answers', () => {
  it('reads plain JSON', () => {
    expect(parseKeywords('{"high_level_keywords": ["economy"], "low_level_keywords": ["Acme", "Berlin"]}')).toEqual({
      high: ['economy'],
      low: ['Acme', 'Berlin'],
    });
  });

  it('reads JSON inside a code fence with prose around it, and comma-separated strings', () => {
    const text = 'Here you go:\n```json\n{"high_level_keywords": "trade, policy", "low_level_keywords": ["EU"]}\n```\nDone.';
    expect(parseKeywords(text)).toEqual({ high: ['trade', 'policy'], low: ['EU'] });
  });

  it('drops duplicates and blanks', () => {
    expect(parseKeywords('{"high_level_keywords": ["A", "a", " "], "low_level_keywords": []}')).toEqual({ high: ['A'], low: [] });
  });

  it('gives null for text without a usable object', () => {
    expect(parseKeywords('no json here')).toBeNull();
    expect(parseKeywords('{"high_level_keywords": 3}')).toBeNull();
    expect(parseKeywords('{broken')).toBeNull();
  });

  it('falls back to named phrases as low-level and other terms as high-level keywords', () => {
    expect(fallbackKeywords('How does Marie Curie relate to radioactivity research?')).toEqual({
      high: ['relate', 'radioactivity', 'research'],
      low: ['Marie Curie'],
      origin: 'fallback',
    });
  });

  it('puts earlier turns and the question into the keyword prompt', () => {
    const messages = keywordsPrompt('And his employer?', [{ role: 'user', content: 'Who is Alice Smith?' }]);
    const user = messages[messages.length - 1].content;
    expect(user).toContain('user: Who is Alice Smith?');
    expect(user).toMatch(/Question: And his employer\?$/);
  });
});

describe('answer prompt', () => {
  it('prepends the system prompt and carries the context, history and question', () => {
    const messages = answerPrompt({
      query: 'Where is Acme?',
      context: '[1] Acme is in Berlin.',
      systemPrompt: 'Answer like a pirate.',
      history: [
        { role: 'user', content: 'Hello' },
        { role: 'assistant', content: 'Hi' },
      ],
      direct: false,
    });
    expect(messages[0].content.startsWith('Answer like a pirate.')).toBe(true);
    expect(messages[0].content).toContain('[1] Acme is in Berlin.');
    expect(messages.slice(1).map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(renderPrompt(messages)).toContain('[user]\nWhere is Acme?');
  });

  it('states that no context was retrieved when there is none', () => {
    const [system] = answerPrompt({ query: 'q', context: '', systemPrompt: null, history: [], direct: false });
    expect(system.content).toContain(NO_CONTEXT);
  });

  it('neither offers nor denies a context in bypass mode', () => {
    const [system] = answerPrompt({ query: 'q', context: '', systemPrompt: null, history: [], direct: true });
    expect(system.content).not.toContain(NO_CONTEXT);
    expect(system.content).not.toContain('---Context---');
  });

  it('keeps the most recent turns within the message and token bounds', () => {
    const history = Array.from({ length: 30 }, (_, i) => ({
      role: i % 2 ? ('assistant' as const) : ('user' as const),
      content: `turn ${i}`,
    }));
    const kept = recentHistory(history, 4, 10_000);
    expect(kept.map((m) => m.content)).toEqual(['turn 26', 'turn 27', 'turn 28', 'turn 29']);
    expect(recentHistory(history, 50, 9).length).toBeLessThan(5);
  });
});
