import { makeChunk, makeDocument, makeEntity, makeRelationship } from '../contract/fixtures';
import { type TestApp, startTestApp } from '../helpers/app';

interface Detail {
  id: string;
  name: string;
  entity_type: string;
  description: string;
  degree: number;
  source_count: number;
  document_ids: string[];
  relationships: Array<{ id: string; weight: number; keywords: string[]; relation_type: string }>;
}

describe('entity edits API', () => {
  let app: TestApp;
  let workspace: string;

  /** A fresh workspace per test: ALICE ~ ALICE_SMITH (duplicates), both know BOB, ALICE knows CAROL. */
  beforeEach(async () => {
    workspace = await app.createWorkspace();
    const scope = { workspaceId: workspace };
    const { graph, documents, chunks } = app.rt.stores;
    await documents.insert(scope, makeDocument({ id: 'doc-1' }));
    await chunks.upsertMany(scope, [
      makeChunk('doc-1', 0, { entity_ids: ['ALICE', 'BOB', 'CAROL'], relationship_ids: ['ALICE|BOB', 'ALICE|CAROL'] }),
      makeChunk('doc-1', 1, { entity_ids: ['ALICE_SMITH', 'BOB'], relationship_ids: ['ALICE_SMITH|BOB'] }),
    ]);
    await graph.upsertEntities(scope, [
      makeEntity('ALICE', { name: 'Alice', source_chunk_ids: ['doc-1-chunk-0'] }),
      makeEntity('ALICE_SMITH', { name: 'Alice Smith', source_chunk_ids: ['doc-1-chunk-1'] }),
      makeEntity('BOB', { name: 'Bob', source_chunk_ids: ['doc-1-chunk-0', 'doc-1-chunk-1'] }),
      makeEntity('CAROL', { name: 'Carol', source_chunk_ids: ['doc-1-chunk-0'] }),
    ]);
    await graph.upsertRelationships(scope, [
      makeRelationship('ALICE', 'BOB', { weight: 1, keywords: ['knows'], source_chunk_ids: ['doc-1-chunk-0'] }),
      makeRelationship('ALICE_SMITH', 'BOB', { weight: 2.5, keywords: ['colleague'], source_chunk_ids: ['doc-1-chunk-1'] }),
      makeRelationship('ALICE', 'CAROL', { source_chunk_ids: ['doc-1-chunk-0'] }),
    ]);
  });

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  const call = (path: string, init: RequestInit & { json?: unknown } = {}) => app.request(`/api/v1${path}`, { ...init, workspace });

  it('merges entities: relationships move, duplicates merge with summed weights, the old id is gone', async () => {
    const res = await call('/graph/entities/merge', {
      method: 'POST',
      json: { source_ids: ['alice'], target_id: 'Alice Smith', reason: 'same person' },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { entity: Detail; merged_from: string[]; relationships_moved: number; relationships_merged: number };
    expect(body).toMatchObject({ merged_from: ['ALICE'], relationships_moved: 2, relationships_merged: 1, self_loops_dropped: 0 });
    expect(body.entity.id).toBe('ALICE_SMITH');
    expect(body.entity.degree).toBe(2);
    expect(body.entity.source_count).toBe(2);
    const bob = body.entity.relationships.find((r) => r.id === 'ALICE_SMITH|BOB');
    expect(bob?.weight).toBe(3.5);
    expect(bob?.keywords.sort()).toEqual(['colleague', 'knows']);
    expect((await call('/graph/entities/ALICE')).status).toBe(404);
    const chunk = (await (await call('/chunks/doc-1-chunk-0')).json()) as { entities: Array<{ id: string }> };
    expect(chunk.entities.map((e) => e.id).sort()).toEqual(['ALICE_SMITH', 'BOB', 'CAROL']);
    const lineage = (await (await call('/lineage/entities/alice%20smith')).json()) as { merge_history: unknown[] };
    expect(lineage.merge_history).toEqual([{ date: expect.any(String), merged_from: ['ALICE'], reason: 'same person' }]);
  });

  it('refuses bad merges: unknown ids 404, the target among the sources 422, an empty list 422', async () => {
    const unknown = await call('/graph/entities/merge', { method: 'POST', json: { source_ids: ['NOBODY'], target_id: 'BOB' } });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { detail: string }).detail).toContain('NOBODY');
    const self = await call('/graph/entities/merge', { method: 'POST', json: { source_ids: ['BOB'], target_id: 'bob' } });
    expect(self.status).toBe(422);
    expect((await call('/graph/entities/merge', { method: 'POST', json: { source_ids: [], target_id: 'BOB' } })).status).toBe(422);
    const elsewhere = await app.request('/api/v1/graph/entities/merge', {
      method: 'POST',
      json: { source_ids: ['ALICE'], target_id: 'BOB' },
      workspace: `${workspace}-x`,
    });
    expect(elsewhere.status).toBe(404);
    expect(((await (await call('/graph/stats')).json()) as { total_nodes: number }).total_nodes).toBe(4);
  });

  it('renames an entity to a new id and moves its relationships', async () => {
    const res = await call('/graph/entities/carol/rename', { method: 'POST', json: { name: 'Carol Danvers' } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { entity: Detail; previous_id: string; merged: boolean };
    expect(body).toMatchObject({ previous_id: 'CAROL', merged: false, entity: { id: 'CAROL_DANVERS', name: 'Carol Danvers' } });
    expect(body.entity.relationships.map((r) => r.id)).toEqual(['ALICE|CAROL_DANVERS']);
    expect((await call('/graph/entities/CAROL')).status).toBe(404);
    const graph = (await (await call('/graph?start_node=carol%20danvers&depth=1')).json()) as { nodes: Array<{ id: string }> };
    expect(graph.nodes.map((x) => x.id)).toEqual(['CAROL_DANVERS', 'ALICE']);
  });

  it('answers 409 when renaming onto an existing entity, and merges when merge is true', async () => {
    const taken = await call('/graph/entities/ALICE/rename', { method: 'POST', json: { name: 'Alice Smith' } });
    expect(taken.status).toBe(409);
    expect(await taken.json()).toMatchObject({ status: 409, existing_id: 'ALICE_SMITH' });
    expect((await call('/graph/entities/ALICE')).status).toBe(200);
    const merged = await call('/graph/entities/ALICE/rename', { method: 'POST', json: { name: 'Alice Smith', merge: true } });
    expect(merged.status).toBe(200);
    expect(await merged.json()).toMatchObject({ merged: true, previous_id: 'ALICE', entity: { id: 'ALICE_SMITH', degree: 2 } });
  });

  it('patches description and type; refuses an empty patch, unknown fields and unknown entities', async () => {
    const res = await call('/graph/entities/bob', { method: 'PATCH', json: { description: 'Engineer', entity_type: 'person' } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: 'BOB', description: 'Engineer', entity_type: 'PERSON' });
    expect((await call('/graph/entities/bob', { method: 'PATCH', json: {} })).status).toBe(422);
    expect((await call('/graph/entities/bob', { method: 'PATCH', json: { colour: 'red' } })).status).toBe(422);
    expect((await call('/graph/entities/bob', { method: 'PATCH', json: { entity_type: '***' } })).status).toBe(422);
    expect((await call('/graph/entities/nobody', { method: 'PATCH', json: { description: 'x' } })).status).toBe(404);
    expect((await call('/graph/entities/bob', { method: 'PATCH', body: 'description=x' })).status).toBe(400);
  });

  it("creates an analyst's entity under EdgeQuake's names, embedded and found, and refuses a taken name", async () => {
    const res = await call('/graph/entities', {
      method: 'POST',
      json: { entity_name: 'Dana Scully', entity_type: 'person', description: 'An FBI agent', source_id: 'manual' },
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Detail & { entity: Detail; status: string };
    expect(body).toMatchObject({
      id: 'DANA_SCULLY',
      name: 'Dana Scully',
      entity_type: 'PERSON',
      description: 'An FBI agent',
      status: 'success',
    });
    expect(body.entity).toMatchObject({ id: 'DANA_SCULLY', degree: 0, document_ids: [] });
    expect(await app.rt.stores.vectors.count({ workspaceId: workspace }, 'entity')).toBe(1);
    expect((await call('/graph/entities/dana%20scully')).status).toBe(200);
    expect((await call('/graph/entities', { method: 'POST', json: { name: 'DANA SCULLY', entity_type: 'PERSON' } })).status).toBe(409);
    expect((await call('/graph/entities', { method: 'POST', json: { entity_type: 'PERSON' } })).status).toBe(422);
  });

  it('deletes an entity with its relationships, their links in chunk records, and says what went', async () => {
    expect((await call('/graph/entities/alice?confirm=false', { method: 'DELETE' })).status).toBe(422);
    const res = await call('/graph/entities/alice?confirm=true', { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'success', deleted_id: 'ALICE', relationships_removed: 2 });
    const scope = { workspaceId: workspace };
    expect(await app.rt.stores.graph.getEntity(scope, 'ALICE')).toBeNull();
    expect(await app.rt.stores.graph.getRelationships(scope, ['ALICE|BOB', 'ALICE|CAROL'])).toEqual([]);
    const [chunk] = await app.rt.stores.chunks.getMany(scope, ['doc-1-chunk-0']);
    expect(chunk).toMatchObject({ entity_ids: ['BOB', 'CAROL'], relationship_ids: [] });
    expect((await call('/graph/entities/bob')).status).toBe(200);
    expect((await call('/graph/entities/alice', { method: 'DELETE' })).status).toBe(404);
  });
});
