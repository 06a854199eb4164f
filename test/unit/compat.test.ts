import { loadConfig } from '../../src/config/load';
import { decodeContext, encodeContext } from '../../src/services/compat/context-tokens';
import { keepAliveMs, LoadedModels } from '../../src/services/compat/keep-alive';
import { resolveModel, splitWorkspace } from '../../src/services/compat/models';
import { ragTurnOf, splitModePrefix } from '../../src/services/compat/turns';

/** The pure parts of the compatibility layer (docs/api.md §4.12): names, prefixes, context tokens, keep-alive. */

const config = loadConfig(
  { SERVICE_MODELS_CONFIG: `${__dirname}/../../models.toml`, OPENAI_API_KEY: 'sk-test' },
  { cwd: `${__dirname}/../..`, homeDir: '/nonexistent' },
);

describe('model names', () => {
  it('resolves RAG models by mode, kgrag and kgrag:latest as hybrid, case-insensitively', () => {
    expect(resolveModel(config, 'kgrag:local')).toEqual({ kind: 'rag', name: 'kgrag:local', mode: 'local' });
    expect(resolveModel(config, 'kgrag')).toMatchObject({ kind: 'rag', mode: 'hybrid' });
    expect(resolveModel(config, 'KGRAG:Latest')).toMatchObject({ kind: 'rag', mode: 'hybrid' });
    expect(resolveModel(config, 'kgrag:context@team-a')).toEqual({ kind: 'rag', name: 'kgrag:context@team-a', mode: 'context' });
  });

  it('resolves provider models by provider/model, by a bare listed name, and unlisted models of open providers', () => {
    expect(resolveModel(config, 'openai/gpt-4o-mini')).toMatchObject({
      kind: 'provider',
      provider: 'openai',
      model: 'gpt-4o-mini',
      type: 'llm',
    });
    expect(resolveModel(config, 'text-embedding-3-small')).toMatchObject({ provider: 'openai', type: 'embedding' });
    expect(resolveModel(config, 'ollama/phi4:latest')).toMatchObject({
      provider: 'ollama',
      model: 'phi4:latest',
      type: 'llm',
      listed: null,
    });
    expect(resolveModel(config, 'mock/mock-llm:latest')).toMatchObject({ provider: 'mock', model: 'mock-llm' });
  });

  it('refuses unknown names with a 404 naming the model, and malformed workspaces', () => {
    for (const name of ['kgrag:turbo', 'mock/unknown', 'gpt-9', 'kgrag:hybrid:extra']) {
      expect(() => resolveModel(config, name)).toThrow(
        expect.objectContaining({ kind: 'not_found', details: { param: 'model', code: 'model_not_found' } }),
      );
    }
    expect(() => splitWorkspace('kgrag:hybrid@')).toThrow(/not a workspace id/);
    expect(splitWorkspace('kgrag:hybrid@a@b')).toEqual({ base: 'kgrag:hybrid@a', workspace: 'b' });
  });
});

describe('mode prefixes and conversations', () => {
  it('splits a leading mode prefix off, only as a whole word', () => {
    expect(splitModePrefix('/local who is Alice?')).toEqual({ mode: 'local', rest: 'who is Alice?' });
    expect(splitModePrefix('  /MIX\nwhat?')).toEqual({ mode: 'mix', rest: 'what?' });
    expect(splitModePrefix('/context')).toEqual({ mode: 'context', rest: '' });
    expect(splitModePrefix('/locally speaking')).toEqual({ mode: null, rest: '/locally speaking' });
    expect(splitModePrefix('what is /local?')).toEqual({ mode: null, rest: 'what is /local?' });
  });

  it('makes the last user message the query, earlier turns the history and system messages the system prompt', () => {
    const turn = ragTurnOf([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: '/global first question' },
      { role: 'assistant', content: 'first answer' },
      { role: 'tool', content: 'tool output' },
      { role: 'developer', content: 'Cite.' },
      { role: 'user', content: '/naive second question' },
      { role: 'assistant', content: 'a prefilled start' },
    ]);
    expect(turn).toEqual({
      query: 'second question',
      prefixMode: 'naive',
      systemPrompt: 'Be brief.\n\nCite.',
      history: [
        { role: 'user', content: 'first question' },
        { role: 'assistant', content: 'first answer' },
      ],
    });
  });
});

describe('generate context tokens', () => {
  it('encode the turns so that they decode to the same turns, special-token text included', () => {
    const turns = [
      { role: 'user' as const, content: 'Where is Acme?' },
      { role: 'assistant' as const, content: 'In Berlin. <|endoftext|> is just text here.' },
      { role: 'user' as const, content: 'And Globex?' },
      { role: 'assistant' as const, content: 'Tokyo.' },
    ];
    expect(decodeContext(encodeContext(turns))).toEqual(turns);
    expect(decodeContext([])).toEqual([]);
  });

  it('refuses ids that are not tokens', () => {
    expect(() => decodeContext([1, 2, -3])).toThrow(/context: token -3 at index 2/);
    expect(() => decodeContext([200000])).toThrow(/is not a token id/);
  });
});

describe('keep-alive', () => {
  it('reads seconds, durations, 0 and negatives as the runtime does', () => {
    expect(keepAliveMs(undefined)).toBe(300_000);
    expect(keepAliveMs(30)).toBe(30_000);
    expect(keepAliveMs('30')).toBe(30_000);
    expect(keepAliveMs('10m')).toBe(600_000);
    expect(keepAliveMs('1h30m')).toBe(5_400_000);
    expect(keepAliveMs('250ms')).toBe(250);
    expect(keepAliveMs(0)).toBe(0);
    expect(keepAliveMs(-1)).toBe(Infinity);
    expect(keepAliveMs('-1m')).toBe(Infinity);
    expect(() => keepAliveMs('soon')).toThrow(/keep_alive/);
    expect(() => keepAliveMs('5 minutes')).toThrow(/keep_alive/);
  });

  it('lists a model until its keep-alive ends, per workspace; 0 unloads it', () => {
    let now = 1_000_000;
    const loaded = new LoadedModels(() => now);
    const a = { workspaceId: 'a' };
    loaded.touch(a, 'kgrag:hybrid', 60_000);
    loaded.touch(a, 'kgrag:naive', Infinity);
    loaded.touch({ workspaceId: 'b' }, 'kgrag:mix', 120_000);
    expect(loaded.list(a).map((m) => m.name)).toEqual(['kgrag:naive', 'kgrag:hybrid']);
    expect(loaded.list(a)[1].expiresAt.getTime()).toBe(1_060_000);
    now += 60_000;
    expect(loaded.list(a).map((m) => m.name)).toEqual(['kgrag:naive']);
    loaded.touch(a, 'kgrag:naive', 0);
    expect(loaded.list(a)).toEqual([]);
    expect(loaded.list({ workspaceId: 'b' }).map((m) => m.name)).toEqual(['kgrag:mix']);
    // A keep-alive past any date a clock can show is forever, not an invalid date.
    loaded.touch(a, 'kgrag:local', keepAliveMs(1e300));
    expect(loaded.list(a)[0].expiresAt.toISOString()).toMatch(/^\+?\d+-/);
  });
});
