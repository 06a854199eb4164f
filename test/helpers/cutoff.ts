import { startTestApp, type TestApp } from './app';

/**
 * The similarity cut-off with one embedding model: over documents on unrelated topics (one chunk each), a naive
 * query returns the chunk that answers it word for word and none of the others.
 */

export const TOPICS = {
  bread: {
    title: 'Baking bread',
    content:
      'Knead the dough for ten minutes until it is smooth and elastic. Leave the dough covered in a warm kitchen ' +
      'until it doubles in size, which takes about two hours. Bake the loaf at 220 degrees for thirty minutes.',
  },
  saturn: {
    title: 'Moons of Saturn',
    content:
      'Saturn has 146 confirmed moons, more than any other planet. Titan, the largest moon of Saturn, has a thick ' +
      'nitrogen atmosphere and lakes of liquid methane. Enceladus sprays water ice from its south pole.',
  },
  bicycle: {
    title: 'Fixing a flat tyre',
    content:
      'To fix a flat bicycle tyre, lever the tyre off the rim with two tyre levers. Find the hole in the inner ' +
      'tube, patch it, and refit the tube. Pump the tyre up to the pressure printed on its sidewall.',
  },
  violin: {
    title: 'Violin making',
    content:
      'Antonio Stradivari built his violins in Cremona from spruce and maple. He varnished each instrument many ' +
      'times. About 650 of his instruments survive today.',
  },
};

export const QUESTIONS: Array<{ topic: keyof typeof TOPICS; question: string }> = [
  { topic: 'saturn', question: 'Which moon of Saturn has a thick nitrogen atmosphere and lakes of liquid methane?' },
  { topic: 'bread', question: 'How long should the dough be left covered in a warm kitchen?' },
  { topic: 'violin', question: 'Where did Antonio Stradivari build his violins?' },
];

export interface CutoffRun {
  app: TestApp;
  /** Document id of each topic. */
  ids: Record<string, string>;
  /** Documents of the chunks a naive query returns. */
  naive(question: string): Promise<Array<{ document_id: string; score?: number }>>;
}

export async function cutoffRun(env: Record<string, string>): Promise<CutoffRun> {
  const app = await startTestApp(env);
  const ids: Record<string, string> = {};
  for (const [topic, doc] of Object.entries(TOPICS)) {
    const res = await app.request('/api/v1/documents', { method: 'POST', json: doc });
    if (res.status >= 300) throw new Error(`upload of ${topic}: HTTP ${res.status} ${await res.text()}`);
    ids[topic] = ((await res.json()) as { id: string }).id;
  }
  return {
    app,
    ids,
    async naive(question) {
      const res = await app.request('/api/v1/query', { method: 'POST', json: { query: question, mode: 'naive', context_only: true } });
      if (res.status !== 200) throw new Error(`query: HTTP ${res.status} ${await res.text()}`);
      const body = (await res.json()) as { sources: Array<{ source_type: string; document_id?: string; score?: number }> };
      return body.sources
        .filter((s) => s.source_type === 'chunk')
        .map((s) => ({ document_id: s.document_id ?? '', ...(s.score === undefined ? {} : { score: s.score }) }));
    },
  };
}
