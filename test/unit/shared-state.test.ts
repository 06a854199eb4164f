import { loadConfig } from '../../src/config';
import { claimOnce, withLeases } from '../../src/records/leases';
import { GraphEvents } from '../../src/graph/events';
import { createProviderRegistry } from '../../src/llm/registry';
import type { Logger } from '../../src/logger';
import { createCommunityService } from '../../src/services/communities';
import { createCostService } from '../../src/services/costs';
import { createSettingsService } from '../../src/services/settings';
import { createMemoryStores } from '../../src/store/memory';
import { pricedCatalog } from '../fixtures/costs';
import { waitFor } from '../helpers/wait';

/**
 * What several instances on one database share, with two services of a kind over one set of stores standing for
 * two instances: leases, budget alerts raised once, settings changes followed.
 */

const scope = { workspaceId: 'w-shared' };
const quietLog = (warnings: string[] = []) =>
  ({
    warn: (_fields: unknown, msg: string) => warnings.push(msg),
    info: () => undefined,
    debug: () => undefined,
    error: () => undefined,
  }) as unknown as Logger;

describe('leases held across instances', () => {
  it('keeps a second holder out while the first runs, and lets it in after', async () => {
    const { locks } = createMemoryStores();
    let release!: () => void;
    const first = withLeases(locks, scope, ['k'], () => new Promise<string>((resolve) => (release = () => resolve('first'))), {
      wait: true,
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(await withLeases(locks, scope, ['k'], async () => 'second', { wait: false })).toBeNull();
    const waiting = withLeases(locks, scope, ['k'], async () => 'waited', { wait: true });
    release();
    expect(await first).toEqual({ value: 'first' });
    expect(await waiting).toEqual({ value: 'waited' });
  });

  it('claims a key once until its time', async () => {
    const { locks } = createMemoryStores();
    const until = Date.now() + 60_000;
    expect(await claimOnce(locks, scope, 'alert', until)).toBe(true);
    expect(await claimOnce(locks, scope, 'alert', until)).toBe(false);
    expect(await claimOnce(locks, scope, 'other', until)).toBe(true);
  });
});

describe('a budget alert with two instances', () => {
  it('is logged by one of them, and listed by both', async () => {
    const stores = createMemoryStores();
    const config = loadConfig({ SERVICE_LLM_PROVIDER: 'mock', SERVICE_MODELS_CONFIG: pricedCatalog() });
    const warnings: string[] = [];
    const instances = [0, 1].map(() =>
      createCostService({ config, costs: stores.costs, locks: stores.locks, log: quietLog(warnings), tenantOf: async () => null }),
    );
    const call = {
      provider: 'mock',
      model: 'mock-llm',
      kind: 'llm' as const,
      input_tokens: 1000,
      output_tokens: 1000,
      workspace_id: scope.workspaceId,
    };
    instances[0].recorder.record(call);
    await instances[0].flush();
    const spent = (await instances[0].summary(scope)).total_cost_usd;
    await instances[0].updateBudget(scope, { budget_usd: spent * 4, alert_threshold: 0.4 });
    expect(warnings).toEqual([]);
    for (const instance of instances) {
      instance.recorder.record(call);
      await instance.flush();
    }
    expect(warnings.filter((w) => w.includes(scope.workspaceId))).toHaveLength(1);
    for (const instance of instances) expect(instance.alerts()).toEqual([expect.objectContaining({ workspace_id: scope.workspaceId })]);
  });
});

describe('runtime settings with two instances', () => {
  it('applies a change taken by one on the other that follows the record, and merges changes made on both', async () => {
    const stores = createMemoryStores();
    const make = () => {
      const config = loadConfig({ SERVICE_LLM_PROVIDER: 'mock' });
      const service = createSettingsService({
        config,
        records: stores.accounts.settings,
        log: quietLog(),
        queryDefaults: { default_mode: 'hybrid', enable_rerank: true, rerank_top_k: 5 },
      });
      return { config, service };
    };
    const [one, two] = [make(), make()];
    await one.service.load();
    await two.service.load();
    const stop = two.service.follow(20);
    try {
      await one.service.update({ query: { rerank_top_k: 9 }, rate_limits: { query: 7 } });
      for (let i = 0; i < 100 && two.service.current().query.rerank_top_k !== 9; i++) await new Promise((r) => setTimeout(r, 20));
      expect(two.service.current().query.rerank_top_k).toBe(9);
      // The second instance publishes the changed configuration; the one it loaded stays as it was.
      expect(two.service.config().rateLimits.query).toBe(7);
      expect(two.config.rateLimits.query).not.toBe(7);
      // A change on the second instance keeps what the first changed.
      await two.service.update({ ingest: { max_gleaning: 0 } });
      expect(two.service.current()).toMatchObject({ query: { rerank_top_k: 9 }, ingest: { max_gleaning: 0 } });
      await one.service.update({ query: { default_mode: 'local' } });
      expect(one.service.current()).toMatchObject({ query: { rerank_top_k: 9, default_mode: 'local' }, ingest: { max_gleaning: 0 } });
    } finally {
      stop();
    }
  });
});

describe('community recomputes with two instances', () => {
  it('waits for the recompute another instance runs when asked, and leaves a scheduled one to it', async () => {
    const stores = createMemoryStores();
    const config = loadConfig({ SERVICE_LLM_PROVIDER: 'mock' });
    const providers = createProviderRegistry(config);
    const communities = createCommunityService({
      stores,
      providers: () => providers,
      events: new GraphEvents(),
      log: quietLog(),
      refreshMs: 10,
    });
    // Another instance's recompute of the workspace holds its lease.
    let release!: () => void;
    const other = withLeases(stores.locks, scope, ['communities:run'], () => new Promise<void>((resolve) => (release = resolve)), {
      wait: true,
    });
    await new Promise((resolve) => setImmediate(resolve));
    communities.schedule(scope);
    expect((await communities.status(scope)).state).toBe('scheduled');
    await waitFor(
      'the scheduled recompute to be dropped',
      async () => (await communities.status(scope)).state,
      (s) => s === 'idle',
    );
    expect((await communities.status(scope)).last_run).toBeNull();
    let asked = false;
    const rebuilt = communities.rebuild(scope).then((summary) => ((asked = true), summary));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await communities.status(scope)).state).toBe('running');
    expect(asked).toBe(false);
    release();
    await other;
    expect(await rebuilt).toMatchObject({ communities: 0 });
    await communities.close();
  });
});
