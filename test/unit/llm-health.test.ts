import type { ProviderRegistry } from '../../src/llm/ports';
import { LlmHealth } from '../../src/services/llm-health';

type ProviderHealth = Awaited<ReturnType<ProviderRegistry['check']>>[number];

/** The default provider's health as the probes of one runtime see it. */

function registry(checks: Array<Promise<ProviderHealth[]>>): { providers: ProviderRegistry; asked: () => number } {
  let asked = 0;
  const providers = { defaultLlmProviderName: () => 'mock', check: () => checks[asked++] } as unknown as ProviderRegistry;
  return { providers, asked: () => asked };
}

const answer = (status: string) => [{ name: 'mock', status }] as unknown as ProviderHealth[];

afterEach(() => jest.restoreAllMocks());

test('answers from the last check, redoes an old one in the background, and waits for it on close', async () => {
  let release!: () => void;
  const later = new Promise<ProviderHealth[]>((resolve) => (release = () => resolve(answer('unhealthy'))));
  const { providers, asked } = registry([Promise.resolve(answer('healthy')), later]);
  const health = new LlmHealth(providers);
  expect(await health.healthy()).toBe(true);
  expect(await health.healthy()).toBe(true);
  expect(asked()).toBe(1);

  const now = Date.now();
  jest.spyOn(Date, 'now').mockReturnValue(now + 60_000);
  // The check is old: the probe answers with it while it is redone.
  expect(await health.healthy()).toBe(true);
  expect(await health.healthy()).toBe(true);
  expect(asked()).toBe(2);
  let closed = false;
  const closing = health.close().then(() => (closed = true));
  await new Promise((resolve) => setImmediate(resolve));
  expect(closed).toBe(false);
  release();
  await closing;
  expect(await health.healthy()).toBe(false);
});

test('two runtimes keep their own checks', async () => {
  const first = new LlmHealth(registry([Promise.resolve(answer('healthy'))]).providers);
  const second = new LlmHealth(registry([Promise.resolve(answer('unhealthy'))]).providers);
  expect([await first.healthy(), await second.healthy(), await first.healthy()]).toEqual([true, false, true]);
});
