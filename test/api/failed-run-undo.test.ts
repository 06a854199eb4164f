import { UnavailableError } from '../../src/domain/errors';
import type { Scope } from '../../src/domain/types';
import type { GraphStore } from '../../src/store/ports';
import { startTestApp, type TestApp } from '../helpers/app';

/**
 * A failed run is undone as a crash is (src/ingest/pipeline/index.ts, src/services/tasks/runner.ts): the failed document
 * keeps no chunk vectors, no share of entities or relationships and no vectors of them; shared records read again
 * as the completed documents make them, and the integrity check finds no orphan. A store error of the outage kind
 * (a pool time-out among them) puts the task back in the queue instead. Faults are injected into the app's own
 * graph store; the file runs on memory stores and, under `--persistent-only`, on Neo4j.
 */
jest.setTimeout(120_000);

let app: TestApp;

/** Faults the graph store raises while set, each consumed by the call it fails. */
const faults: { merge: Array<() => Error>; read: Array<() => Error> } = { merge: [], read: [] };

beforeAll(async () => {
  app = await startTestApp({ WORKER_THREADS: '1', SERVICE_TASK_OUTAGE_BACKOFF_MS: '50', SERVICE_TASK_OUTAGE_RETRIES: '2' });
  const graph = app.rt.stores.graph as GraphStore;
  const upsertRelationships = graph.upsertRelationships.bind(graph);
  const entitiesOfDocument = graph.entitiesOfDocument.bind(graph);
  // The merge writes entities, then the relationships joining them: failing the second leaves a merge half-written.
  graph.upsertRelationships = async (scope, rows) => {
    const fault = rows.length > 0 ? faults.merge.shift() : undefined;
    if (fault) throw fault();
    return upsertRelationships(scope, rows);
  };
  graph.entitiesOfDocument = async (scope, documentId) => {
    const fault = faults.read.shift();
    if (fault) throw fault();
    return entitiesOfDocument(scope, documentId);
  };
});

afterEach(() => {
  faults.merge.length = 0;
  faults.read.length = 0;
});

afterAll(async () => {
  await app?.close();
});

const ALICE =
  'Alice Smith leads the Graph Team at Acme Corporation in Paris. Alice Smith reports to Bob Jones, who founded Acme Corporation.';
const ZEBRA =
  'The Zebra Project started in Berlin under Alice Smith. The Zebra Project uses the Quill Engine built by Acme Corporation. ' +
  'Dave Brown maintains the Quill Engine in Berlin.';

const scopeOf = (workspace: string): Scope => ({ workspaceId: workspace });

async function upload(content: string, workspace?: string): Promise<{ id: string; taskId: string }> {
  const res = await app.request('/api/v1/documents', { method: 'POST', json: { content, async_processing: true }, workspace });
  expect(res.status).toBe(202);
  const body = (await res.json()) as { document_id: string; task_id: string };
  return { id: body.document_id, taskId: body.task_id };
}

async function settled(id: string, workspace?: string): Promise<{ status: string; error: string | null }> {
  for (;;) {
    const res = await app.request(`/api/v1/documents/${id}`, { workspace });
    const doc = (await res.json()) as { status: string; error: string | null };
    if (doc.status !== 'processing') return doc;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The task once it has finished (its outcome is written after its document's). */
async function finishedTask(id: string): Promise<{ status: string; attempts: number; error: string | null }> {
  for (;;) {
    const task = (await (await app.request(`/api/v1/tasks/${id}`)).json()) as { status: string; attempts: number; error: string | null };
    if (task.status !== 'pending' && task.status !== 'running') return task;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The integrity check over HTTP, its orphans printed when there are any. */
async function expectNoOrphans(workspace?: string): Promise<void> {
  const res = await app.request('/api/v1/admin/integrity', { workspace });
  expect(res.status).toBe(200);
  const report = (await res.json()) as { total: number; orphans: Record<string, { count: number }> };
  const found = Object.entries(report.orphans).filter(([, g]) => g.count > 0);
  expect(found).toEqual([]);
  expect(report.total).toBe(0);
}

/** What the graph holds: every entity and relationship with the text its vector is made of, and the vector counts. */
async function graphState(workspace: string) {
  const { graph, vectors } = app.rt.stores;
  const scope = scopeOf(workspace);
  const entities = (await graph.listEntities(scope, { limit: 1000, offset: 0 })).items;
  const relationships = (await graph.listRelationships(scope, { limit: 1000, offset: 0 })).items;
  return {
    entities: entities.map((e) => [e.id, e.entity_type, e.description, [...e.source_chunk_ids].sort()]).sort(),
    relationships: relationships.map((r) => [r.id, r.description, r.weight, [...r.source_chunk_ids].sort()]).sort(),
    vectors: {
      chunk: await vectors.count(scope, 'chunk'),
      entity: await vectors.count(scope, 'entity'),
      relationship: await vectors.count(scope, 'relationship'),
    },
  };
}

describe('a failed run', () => {
  it('failed mid-merge, with its first undo failing too, leaves the graph exactly as the completed documents make it', async () => {
    const other = await app.createWorkspace();
    const elsewhere = await upload(ZEBRA, other);
    const kept = await upload(ALICE);
    expect(await settled(kept.id)).toMatchObject({ status: 'completed' });
    expect(await settled(elsewhere.id, other)).toMatchObject({ status: 'completed' });
    const before = await graphState(app.workspace);
    const otherBefore = await graphState(other);

    // The merge fails half-way, and so does the pipeline's own undo (its first read): the task runner undoes the run again.
    faults.merge.push(() => {
      faults.read.push(() => new Error('injected read fault'));
      return new Error('injected merge fault');
    });
    const failing = await upload(ZEBRA);
    const failed = await settled(failing.id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/injected merge fault/);
    expect(faults.merge).toEqual([]);
    expect(faults.read).toEqual([]);

    expect(await graphState(app.workspace)).toEqual(before);
    expect(await graphState(other)).toEqual(otherBefore);
    await expectNoOrphans();
    await expectNoOrphans(other);
    // Neither the graph listing nor a naive query sees anything of the failed document.
    const listed = (await (await app.request('/api/v1/graph/entities?limit=100')).json()) as { items?: Array<{ id: string }> };
    expect(JSON.stringify(listed)).not.toMatch(/ZEBRA_PROJECT|QUILL_ENGINE|DAVE_BROWN/);
    const naive = await app.request('/api/v1/query', { method: 'POST', json: { query: 'Who maintains the Quill Engine?', mode: 'naive' } });
    const cited = ((await naive.json()) as { sources: Array<{ document_id?: string }> }).sources;
    expect(cited.map((s) => s.document_id)).not.toContain(failing.id);

    // Retried, the document completes, and what it adds is whole.
    const retry = await app.request(`/api/v1/tasks/${failing.taskId}/retry`, { method: 'POST' });
    expect(retry.status).toBe(200);
    expect(await settled(failing.id)).toMatchObject({ status: 'completed' });
    const after = await graphState(app.workspace);
    expect(after.entities.map((e) => e[0])).toEqual(expect.arrayContaining(['ZEBRA_PROJECT', 'QUILL_ENGINE']));
    await expectNoOrphans();
  });

  it('stopped by a store outage mid-merge goes back to the queue with backoff, undone, and completes once the store answers', async () => {
    const poolTimeOut = () =>
      new UnavailableError('the graph database (Neo4j) could not complete the operation in time; retry shortly', 'neo4j');
    faults.merge.push(poolTimeOut, poolTimeOut);
    const doc = await upload(`${ZEBRA} Erin Green audits the Zebra Project.`);
    expect(await settled(doc.id)).toMatchObject({ status: 'completed', error: null });
    expect(faults.merge).toEqual([]);
    expect(await finishedTask(doc.taskId)).toMatchObject({ status: 'completed', attempts: 2 });
    await expectNoOrphans();
  });

  it('whose store outage outlasts its retries fails for good with nothing of it left', async () => {
    const poolTimeOut = () =>
      new UnavailableError('the graph database (Neo4j) could not complete the operation in time; retry shortly', 'neo4j');
    faults.merge.push(poolTimeOut, poolTimeOut, poolTimeOut);
    const doc = await upload('Frank Hill founded the Orchid Lab in Lisbon. Frank Hill works with Alice Smith at the Orchid Lab.');
    const failed = await settled(doc.id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/a dependency stayed unreachable through 2 retries/);
    expect((await graphState(app.workspace)).entities.map((e) => e[0])).not.toContain('ORCHID_LAB');
    await expectNoOrphans();
  });
});
