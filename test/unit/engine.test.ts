import { createEngine } from '../../src/engine';

describe('the engine', () => {
  it('closes the part owned last first, every part once however often it is closed', async () => {
    const engine = createEngine();
    const closed: string[] = [];
    for (const name of ['stores', 'cache', 'tasks']) engine.own({ close: async () => void closed.push(name) });
    await Promise.all([engine.close(), engine.close()]);
    await engine.close();
    expect(closed).toEqual(['tasks', 'cache', 'stores']);
  });

  it('closes every part when one fails, then throws the failure', async () => {
    const engine = createEngine();
    const closed: string[] = [];
    engine.own({ close: async () => void closed.push('stores') });
    engine.own({
      close: async () => {
        throw new Error('the pool would not stop');
      },
    });
    engine.own({ close: async () => void closed.push('tasks') });
    await expect(engine.close()).rejects.toThrow('the pool would not stop');
    expect(closed).toEqual(['tasks', 'stores']);
  });

  it('refuses a part once closed', async () => {
    const engine = createEngine();
    await engine.close();
    expect(() => engine.own({ close: async () => undefined })).toThrow(/closed/);
  });
});
