import { type SseReader, eventIdOf, openSseReader } from '../api/graph-sse';
import { BalancedInstances, balancedEnv, ingestionUnderWay, taskCounts, unfinished, uploadRange } from '../fixtures/balancer';
import { pricedCatalog } from '../fixtures/costs';
import { json, prose } from '../fixtures/documents';
import { reportedOrphans } from '../fixtures/service-integrity';
import type { ServiceProcess } from '../fixtures/service-process';
import { waitFor } from '../helpers/wait';

/**
 * Three instances of the service behind HAProxy (scripts/haproxy/haproxy.sh: round robin, health-checked on /ready)
 * on one Neo4j and one Redis: nothing that changes an answer is held by one instance. Failed logins count the same
 * whichever instance they reach, a settings change made through one is applied by all, a budget alert is raised
 * once, a graph stream follows changes written through any instance and resumes on another; and with one instance
 * killed (SIGKILL) and restarted in the middle of an ingestion through the balancer, every document completes, the
 * integrity check finds nothing orphaned, and queries meanwhile are answered or refused with 503 and Retry-After.
 */
jest.setTimeout(300_000);

const run = Date.now().toString(36);
const readers: SseReader[] = [];
const balanced = new BalancedInstances(
  `balanced-${run}`,
  balancedEnv({ SERVICE_MODELS_CONFIG: pricedCatalog(), SERVICE_GRAPH_STREAM_HEARTBEAT_MS: '60000' }),
);
const { instances, request: viaBalancer } = balanced;

beforeAll(() => balanced.start());

afterAll(async () => {
  readers.forEach((r) => r.close());
  await balanced.stop();
});

describe('persistent mode: three instances behind HAProxy', () => {
  it('locks a user name out after 5 wrong passwords spread over the instances', async () => {
    const username = `u${run}${Math.random().toString(36).slice(2, 6)}`;
    const password = 'the password of the user';
    const created = await viaBalancer('/api/v1/users', {
      method: 'POST',
      json: { username, email: `${username}@example.com`, password, role: 'viewer' },
    });
    expect(created.status).toBe(201);
    const login = (url: string, pass: string) =>
      fetch(`${url}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': '203.0.113.40' },
        body: JSON.stringify({ username, password: pass }),
      });
    // Two, two and one: no instance alone has seen five.
    for (const i of [0, 1, 2, 0, 1]) expect((await login(instances[i].url, `wrong ${i}`)).status).toBe(401);
    const locked = await login(balanced.url, password);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await json(locked)).lock).toBe('user_at_address');
    for (const service of instances) expect((await login(service.url, password)).status).toBe(429);
  });

  it('applies a settings change made through the balancer on every instance', async () => {
    const topK = async (service: ServiceProcess) => (await json(await service.request('/api/v1/settings'))).query.rerank_top_k as number;
    const before = await topK(instances[0]);
    const changed = before + 3;
    expect((await viaBalancer('/api/v1/settings', { method: 'PATCH', json: { query: { rerank_top_k: changed } } })).status).toBe(200);
    try {
      await waitFor(
        'every instance to apply the change',
        () => Promise.all(instances.map(topK)),
        (v) => v.every((k) => k === changed),
        10_000,
      );
    } finally {
      expect((await viaBalancer('/api/v1/settings', { method: 'PATCH', json: { query: { rerank_top_k: before } } })).status).toBe(200);
    }
    await waitFor(
      'every instance to apply the change back',
      () => Promise.all(instances.map(topK)),
      (v) => v.every((k) => k === before),
      10_000,
    );
  });

  it('raises a budget alert once, however many instances see the spend cross it', async () => {
    const created = await viaBalancer('/api/v1/workspaces', { method: 'POST', json: { name: `budget ${run}` } });
    const budgeted = (await json(created)).id as string;
    const inBudgeted = (service: ServiceProcess | null, path: string, init: Parameters<typeof viaBalancer>[1] = {}) =>
      service ? service.request(path, { ...init, workspace: budgeted }) : viaBalancer(path, { ...init, workspace: budgeted });
    expect((await inBudgeted(null, '/api/v1/documents', { method: 'POST', json: { content: prose(`budget-${run}`, 6) } })).status).toBe(
      201,
    );
    const spent = (await json(await inBudgeted(null, '/api/v1/costs/summary'))).total_cost_usd as number;
    expect(spent).toBeGreaterThan(0);
    const patched = await inBudgeted(null, '/api/v1/costs/budget', {
      method: 'PATCH',
      json: { budget_usd: spent * 3, alert_threshold: 0.3 },
    });
    expect(await json(patched)).toMatchObject({ alert: true, exhausted: false });
    // Each instance reads the budget from its cache for up to 2 s after another changed it: a spend check on a copy
    // read before the change would see no budget. The queries below start once every instance reads the new one.
    const budgetOn = async (service: ServiceProcess) => (await json(await inBudgeted(service, '/api/v1/costs/budget'))).budget_usd;
    await waitFor(
      'every instance to read the new budget',
      () => Promise.all(instances.map(budgetOn)),
      (budgets) => budgets.every((b) => typeof b === 'number' && Math.abs(b - spent * 3) < 1e-9),
      10_000,
    );
    // A query through each instance: each records spend over the threshold and looks at the alert.
    for (const service of instances) {
      expect(
        (await inBudgeted(service, '/api/v1/query', { method: 'POST', json: { query: 'Who worked with Acme Research?' } })).status,
      ).toBe(200);
    }
    const alertsOf = async (service: ServiceProcess) =>
      ((await json(await fetch(`${service.url}/health`))).operational.budget_alerts as Array<{ workspace_id: string }>).filter(
        (a) => a.workspace_id === budgeted,
      ).length;
    await waitFor(
      'every instance to know the alert',
      () => Promise.all(instances.map(alertsOf)),
      (n) => n.every((c) => c === 1),
      10_000,
    );
    const raised = instances.flatMap((s) =>
      s.logs.filter((l) => typeof l.msg === 'string' && l.msg.includes(budgeted) && /budget/.test(l.msg)),
    );
    expect(raised.map((l) => l.msg)).toEqual([expect.stringMatching(/has used \d+(\.\d+)?% of its month budget/)]);
  });

  it('streams a change written through one instance to a subscriber on another, which resumes on a third', async () => {
    const [a, b, c] = instances;
    const subscribe = async (on: ServiceProcess, lastEventId?: string) => {
      const controller = new AbortController();
      const headers = { Accept: 'text/event-stream', ...(lastEventId ? { 'Last-Event-ID': lastEventId } : {}) };
      const res = await on.request('/api/v1/graph/stream', { headers, signal: controller.signal });
      expect(res.status).toBe(200);
      const reader = await openSseReader(res, controller);
      readers.push(reader);
      return reader;
    };
    const ingest = async (on: ServiceProcess, content: string) => {
      const res = await on.request('/api/v1/documents', { method: 'POST', json: { content } });
      expect(res.status).toBe(201);
      const { id } = (await res.json()) as { id: string };
      const { entities } = await json(await on.request('/api/v1/graph/entities?limit=1000'));
      return (entities as Array<{ id: string; document_ids: string[] }>).filter((e) => e.document_ids.includes(id)).map((e) => e.id);
    };
    const untilAdded = (reader: SseReader, ids: string[]) => {
      const seen = new Set<string>();
      return reader.until((e) => {
        if (e.type === 'node_added') seen.add((e.node as { id: string }).id);
        return ids.every((id) => seen.has(id));
      }, 30_000);
    };
    const onA = await subscribe(a);
    await onA.until((e) => e.type === 'done');
    const first = await ingest(c, `Rosalind Franklin studied DNA at King's College ${run}. Maurice Wilkins worked at King's College.`);
    expect(first.length).toBeGreaterThan(0);
    const last = (await untilAdded(onA, first)).at(-1)!;
    onA.close();
    const second = await ingest(c, `Lise Meitner explained fission with Otto Frisch ${run}. Otto Hahn worked in Berlin.`);
    const onB = await subscribe(b, eventIdOf(last));
    expect(await onB.next()).toMatchObject({ type: 'resumed', last_event_id: eventIdOf(last) });
    const missed = await untilAdded(onB, second);
    expect(missed.some((e) => e.type === 'node_added' && first.includes((e.node as { id: string }).id))).toBe(false);
    onB.close();
  });

  it('completes an ingestion through the balancer while an instance is killed and restarted, answering queries throughout', async () => {
    const DOCUMENTS = 30;
    const prefix = `scale-${run}`;
    const { answers, queries } = await ingestionUnderWay(viaBalancer, prefix, DOCUMENTS / 2);
    await instances[1].kill('SIGKILL');
    const uploads = uploadRange(viaBalancer, answers, prefix, DOCUMENTS / 2, DOCUMENTS);
    await balanced.startInstance(1);
    await uploads;
    const settled = await waitFor(
      'the queue to drain',
      () => taskCounts(viaBalancer),
      (c) => c.pending === 0 && c.running === 0,
      180_000,
    );
    await queries.stop();

    expect(await unfinished(viaBalancer, prefix)).toEqual({ total: DOCUMENTS, unfinished: [] });
    expect(await reportedOrphans((p) => viaBalancer(p))).toEqual({});
    expect(answers.faults).toEqual([]);
    expect(answers.get('query 200')).toBeGreaterThan(0);
    process.stdout.write(`balanced kill-and-restart: tasks ${JSON.stringify(settled)}; answers ${JSON.stringify(answers)}\n`);
  });
});
