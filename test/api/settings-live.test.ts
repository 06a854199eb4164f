import type { AppConfig } from '../../src/config/types';
import { startTestApp, type TestApp } from '../helpers/app';

/** The configuration stays as loaded; the settings service publishes the live one (docs/architecture.md). */

let app: TestApp;

/** The settings are one record for the whole service: a run starts and ends without one. */
const forgetStored = async (a: TestApp) => void (await a.rt.stores.accounts.settings.delete('service'));

beforeAll(async () => {
  app = await startTestApp();
  await forgetStored(app);
  await app.rt.settings.load();
});

afterAll(async () => {
  if (app) await forgetStored(app);
  await app?.close();
});

it('publishes a changed setting as a new read-only configuration, leaving the loaded one as it was', async () => {
  const loaded = app.config;
  expect(Object.isFrozen(loaded.ingest)).toBe(true);
  const published: AppConfig[] = [];
  const stop = app.rt.settings.subscribe((config) => published.push(config));
  try {
    const res = await app.request('/api/v1/settings', {
      method: 'PATCH',
      json: { ingest: { chunk_tokens: 600, chunk_overlap_tokens: 50 }, rate_limits: { upload: 7 } },
    });
    expect(res.status).toBe(200);
  } finally {
    stop();
  }
  expect(loaded.ingest).toMatchObject({ chunkTokens: 1200, chunkOverlapTokens: 100 });
  expect(loaded.rateLimits.upload).toBe(0);
  expect(app.rt.config.ingest).toMatchObject({ chunkTokens: 600, chunkOverlapTokens: 50 });
  expect(app.rt.config.rateLimits.upload).toBe(7);
  expect(Object.isFrozen(app.rt.config.ingest)).toBe(true);
  expect(published).toHaveLength(1);
  expect(published[0]).toBe(app.rt.config);
  // What the settings do not name is the environment's.
  expect(app.rt.config.ingest.llmConcurrency).toBe(loaded.ingest.llmConcurrency);
  expect(app.rt.config.storage).toBe(loaded.storage);
});
