import { ALIASES_NAMESPACE, MERGE_HISTORY_NAMESPACE, OVERRIDES_NAMESPACE, resolveEntityAlias } from '../../src/graph/aliases';
import { renameEntity, updateEntity } from '../../src/graph/edit';
import { mergeEntities, mergeGroups } from '../../src/graph/merge';
import type { GraphDeps } from '../../src/graph/deps';
import { applyMerges } from '../../src/graph/resolution/resolve';
import { makeChunk, makeDocument, makeEntity, makeRelationship } from '../contract/fixtures';
import { graphDeps, otherScope, scope } from './graph-fixtures';

const vector = (seed: number) => Array.from({ length: 16 }, (_, i) => Math.sin(seed + i));

/**
 * ALICE and ALICE_SMITH are the same person. ALICE|BOB duplicates ALICE_SMITH|BOB, ALICE|ALICE_SMITH becomes a
 * self-loop, ALICE|CAROL must move, BOB|DAVE stays untouched.
 */
async function seed(deps: GraphDeps) {
  const { graph, chunks, documents, vectors } = deps.stores;
  await documents.insert(scope, makeDocument({ id: 'doc-1', entity_count: 99, relationship_count: 99 }));
  await documents.insert(scope, makeDocument({ id: 'doc-2', content_hash: 'sha256:2', entity_count: 99, relationship_count: 99 }));
  const d1 = { document_ids: ['doc-1'] };
  await graph.upsertEntities(scope, [
    makeEntity('ALICE', {
      ...d1,
      name: 'Alice',
      description: 'A researcher',
      source_chunk_ids: ['doc-1-chunk-0', 'doc-2-chunk-0'],
      document_ids: ['doc-1', 'doc-2'],
    }),
    makeEntity('ALICE_SMITH', {
      ...d1,
      name: 'Alice Smith',
      description: 'Researcher at Acme',
      source_chunk_ids: ['doc-1-chunk-0', 'doc-1-chunk-1'],
    }),
    makeEntity('BOB', { ...d1, name: 'Bob', source_chunk_ids: ['doc-1-chunk-0', 'doc-1-chunk-1'] }),
    makeEntity('CAROL', { name: 'Carol', source_chunk_ids: ['doc-2-chunk-0'], document_ids: ['doc-2'] }),
    makeEntity('DAVE', { ...d1, name: 'Dave', source_chunk_ids: ['doc-1-chunk-1'] }),
  ]);
  await graph.upsertRelationships(scope, [
    makeRelationship('ALICE', 'BOB', { ...d1, keywords: ['knows'], weight: 1, source_chunk_ids: ['doc-1-chunk-0'] }),
    makeRelationship('ALICE_SMITH', 'BOB', {
      ...d1,
      keywords: ['colleague'],
      weight: 2,
      source_chunk_ids: ['doc-1-chunk-1'],
      relation_type: 'WORKS_WITH',
    }),
    makeRelationship('ALICE', 'ALICE_SMITH', { ...d1, source_chunk_ids: ['doc-1-chunk-0'] }),
    makeRelationship('ALICE', 'CAROL', { source_chunk_ids: ['doc-2-chunk-0'], document_ids: ['doc-2'] }),
    makeRelationship('BOB', 'DAVE', { ...d1, source_chunk_ids: ['doc-1-chunk-1'] }),
  ]);
  await chunks.upsertMany(scope, [
    makeChunk('doc-1', 0, { entity_ids: ['ALICE', 'ALICE_SMITH', 'BOB'], relationship_ids: ['ALICE|BOB', 'ALICE|ALICE_SMITH'] }),
    makeChunk('doc-1', 1, { entity_ids: ['ALICE_SMITH', 'BOB', 'DAVE'], relationship_ids: ['ALICE_SMITH|BOB', 'BOB|DAVE'] }),
    makeChunk('doc-2', 0, { entity_ids: ['ALICE', 'CAROL'], relationship_ids: ['ALICE|CAROL'] }),
  ]);
  const entityIds = ['ALICE', 'ALICE_SMITH', 'BOB', 'CAROL', 'DAVE'];
  await vectors.upsert(
    scope,
    'entity',
    entityIds.map((id, i) => ({ id, vector: vector(i), document_ids: ['doc-1'] })),
  );
  const relIds = ['ALICE|BOB', 'ALICE_SMITH|BOB', 'ALICE|ALICE_SMITH', 'ALICE|CAROL', 'BOB|DAVE'];
  await vectors.upsert(
    scope,
    'relationship',
    relIds.map((id, i) => ({ id, vector: vector(10 + i), document_ids: ['doc-1'] })),
  );
}

describe('mergeEntities', () => {
  it('moves relationships to the survivor, sums duplicate weights, unites keywords and drops self-loops', async () => {
    const deps = graphDeps();
    await seed(deps);
    const outcome = await mergeEntities(deps, scope, { sourceIds: ['alice'], targetId: 'Alice Smith', reason: 'same person' });
    expect(outcome).toMatchObject({ merged_from: ['ALICE'], relationships_moved: 2, relationships_merged: 1, self_loops_dropped: 1 });

    const { graph } = deps.stores;
    expect(await graph.getEntity(scope, 'ALICE')).toBeNull();
    const survivor = await graph.getEntity(scope, 'ALICE_SMITH');
    expect(survivor?.source_chunk_ids.sort()).toEqual(['doc-1-chunk-0', 'doc-1-chunk-1', 'doc-2-chunk-0']);
    expect(survivor?.document_ids.sort()).toEqual(['doc-1', 'doc-2']);
    expect(survivor?.description).toBe('Researcher at Acme\nA researcher');

    const relationships = (await graph.listRelationships(scope, { limit: 100, offset: 0 })).items;
    expect(relationships.map((r) => r.id)).toEqual(['ALICE_SMITH|BOB', 'ALICE_SMITH|CAROL', 'BOB|DAVE']);
    const bob = relationships[0];
    expect(bob).toMatchObject({ weight: 3, relation_type: 'WORKS_WITH' });
    expect(bob.keywords.sort()).toEqual(['colleague', 'knows']);
    expect(bob.source_chunk_ids.sort()).toEqual(['doc-1-chunk-0', 'doc-1-chunk-1']);
    expect(relationships[1]).toMatchObject({ source: 'ALICE_SMITH', target: 'CAROL', document_ids: ['doc-2'] });
  });

  it('rewrites chunk records, vectors, document counts, the merge history and the alias map', async () => {
    const deps = graphDeps();
    await seed(deps);
    await mergeEntities(deps, scope, { sourceIds: ['ALICE'], targetId: 'ALICE_SMITH', reason: 'same person' });
    const { chunks, vectors, kv, documents } = deps.stores;

    const [c0, c1, c2] = await chunks.getMany(scope, ['doc-1-chunk-0', 'doc-1-chunk-1', 'doc-2-chunk-0']);
    expect(c0).toMatchObject({ entity_ids: ['ALICE_SMITH', 'BOB'], relationship_ids: ['ALICE_SMITH|BOB'] });
    expect(c1).toMatchObject({ entity_ids: ['ALICE_SMITH', 'BOB', 'DAVE'], relationship_ids: ['ALICE_SMITH|BOB', 'BOB|DAVE'] });
    expect(c2).toMatchObject({ entity_ids: ['ALICE_SMITH', 'CAROL'], relationship_ids: ['ALICE_SMITH|CAROL'] });

    expect(await vectors.count(scope, 'entity')).toBe(4);
    expect(await vectors.count(scope, 'relationship')).toBe(3);
    expect(deps.embedded[0]).toBe('Alice Smith: Researcher at Acme\nA researcher');
    const [survivorVector] = await deps.providers.embedding().embed([deps.embedded[0]]);
    expect((await vectors.search(scope, 'entity', survivorVector, 1))[0]).toMatchObject({ id: 'ALICE_SMITH' });
    const carolEdge = deps.embedded.find((t) => t.includes('ALICE_SMITH - CAROL'));
    expect(carolEdge).toBeDefined();

    expect(await kv.get(scope, ALIASES_NAMESPACE, 'ALICE')).toBe('ALICE_SMITH');
    expect(await kv.get(scope, MERGE_HISTORY_NAMESPACE, 'ALICE_SMITH')).toEqual([
      { date: expect.any(String), merged_from: ['ALICE'], reason: 'same person' },
    ]);
    expect(await documents.get(scope, 'doc-1')).toMatchObject({ entity_count: 3, relationship_count: 2 });
    expect(await documents.get(scope, 'doc-2')).toMatchObject({ entity_count: 2, relationship_count: 1 });
  });

  it('with carried vectors, embeds nothing: the survivor and rewritten relationships keep the vectors they replace, listed as stale', async () => {
    const deps = graphDeps();
    await seed(deps);
    const { vectors } = deps.stores;
    const before = await vectors.vectorsOf(scope, 'relationship', ['ALICE|CAROL', 'ALICE_SMITH|BOB']);
    const survivorBefore = (await vectors.vectorsOf(scope, 'entity', ['ALICE_SMITH'])).get('ALICE_SMITH') as number[];
    const outcome = await mergeGroups(deps, scope, [{ sourceIds: ['ALICE'], targetId: 'ALICE_SMITH', reason: 'same person' }], {
      cause: 'merge',
      carry: true,
    });
    expect(deps.embedded).toEqual([]);
    expect(outcome).toMatchObject({ merged: [{ targetId: 'ALICE_SMITH', sourceIds: ['ALICE'] }], missing: [] });
    expect(outcome.stale.entities.map((e) => e.id)).toEqual(['ALICE_SMITH']);
    expect(outcome.stale.entities[0].description).toBe('Researcher at Acme\nA researcher');
    expect(outcome.stale.relationships.map((r) => r.id).sort()).toEqual(['ALICE_SMITH|BOB', 'ALICE_SMITH|CAROL']);
    const after = await vectors.vectorsOf(scope, 'relationship', ['ALICE|CAROL', 'ALICE_SMITH|CAROL', 'ALICE_SMITH|BOB']);
    expect([...after.keys()].sort()).toEqual(['ALICE_SMITH|BOB', 'ALICE_SMITH|CAROL']);
    expect(after.get('ALICE_SMITH|CAROL')).toEqual(before.get('ALICE|CAROL'));
    expect(after.get('ALICE_SMITH|BOB')).toEqual(before.get('ALICE_SMITH|BOB'));
    expect((await vectors.vectorsOf(scope, 'entity', ['ALICE_SMITH'])).get('ALICE_SMITH')).toEqual(survivorBefore);
    expect(await vectors.ids(scope, 'entity')).not.toContain('ALICE');
    // The survivor's point now serves both documents.
    expect((await vectors.search(scope, 'entity', survivorBefore, 1, { documentIds: ['doc-2'] }))[0]?.id).toBe('ALICE_SMITH');
  });

  it('with carried vectors, writes a rewritten relationship that has no vector to carry without one, listed as unembedded', async () => {
    const deps = graphDeps();
    await seed(deps);
    await deps.stores.vectors.delete(scope, 'relationship', ['ALICE|CAROL']);
    const outcome = await mergeGroups(deps, scope, [{ sourceIds: ['ALICE'], targetId: 'ALICE_SMITH', reason: 'same person' }], {
      cause: 'merge',
      carry: true,
    });
    expect(deps.embedded).toEqual([]);
    expect(outcome.stale.relationships.map((r) => r.id)).toEqual(['ALICE_SMITH|BOB']);
    expect(outcome.unembedded.relationships.map((r) => r.id)).toEqual(['ALICE_SMITH|CAROL']);
    expect(outcome.unembedded.entities).toEqual([]);
    expect((await deps.stores.graph.getRelationships(scope, ['ALICE_SMITH|CAROL'])).map((r) => r.source)).toEqual(['ALICE_SMITH']);
    expect((await deps.stores.vectors.ids(scope, 'relationship')).sort()).toEqual(['ALICE_SMITH|BOB', 'BOB|DAVE']);
  });

  it('publishes the survivor update, the removals and the rewritten edges in one batch', async () => {
    const deps = graphDeps();
    await seed(deps);
    await mergeEntities(deps, scope, { sourceIds: ['ALICE'], targetId: 'ALICE_SMITH' });
    expect(deps.published).toHaveLength(1);
    const [batch] = deps.published;
    expect(batch).toMatchObject({ scope, cause: 'merge' });
    const summary = batch.changes.map((c) => `${c.kind} ${c.id}`);
    expect(summary).toEqual([
      'node_updated ALICE_SMITH',
      'edge_removed ALICE|ALICE_SMITH',
      'edge_removed ALICE|BOB',
      'edge_removed ALICE|CAROL',
      'node_removed ALICE',
      'edge_updated ALICE_SMITH|BOB',
      'edge_added ALICE_SMITH|CAROL',
    ]);
  });

  it('refuses unknown ids as not found, the target among the sources as invalid, and writes nothing', async () => {
    const deps = graphDeps();
    await seed(deps);
    const before = await deps.stores.graph.stats(scope);
    await expect(mergeEntities(deps, scope, { sourceIds: ['ALICE', 'NOBODY'], targetId: 'BOB' })).rejects.toMatchObject({
      kind: 'not_found',
      message: expect.stringContaining('NOBODY'),
    });
    await expect(mergeEntities(deps, scope, { sourceIds: ['ALICE'], targetId: 'alice' })).rejects.toMatchObject({ kind: 'invalid' });
    await expect(mergeEntities(deps, otherScope, { sourceIds: ['ALICE'], targetId: 'BOB' })).rejects.toMatchObject({ kind: 'not_found' });
    expect(await deps.stores.graph.stats(scope)).toEqual(before);
    expect(deps.published).toHaveLength(0);
  });

  it('flattens alias chains: after A into B and B into C, both A and B lead to C', async () => {
    const deps = graphDeps();
    await seed(deps);
    await mergeEntities(deps, scope, { sourceIds: ['ALICE'], targetId: 'ALICE_SMITH' });
    await mergeEntities(deps, scope, { sourceIds: ['ALICE_SMITH'], targetId: 'CAROL' });
    const { kv } = deps.stores;
    expect(await kv.get(scope, ALIASES_NAMESPACE, 'ALICE')).toBe('CAROL');
    expect(await kv.get(scope, ALIASES_NAMESPACE, 'ALICE_SMITH')).toBe('CAROL');
    expect(await resolveEntityAlias(kv, scope, 'ALICE')).toBe('CAROL');
    const history = await kv.get<Array<{ merged_from: string[] }>>(scope, MERGE_HISTORY_NAMESPACE, 'CAROL');
    expect(history?.map((h) => h.merged_from)).toEqual([['ALICE'], ['ALICE_SMITH']]);
    expect(await kv.get(scope, MERGE_HISTORY_NAMESPACE, 'ALICE_SMITH')).toBeNull();
  });
});

describe('mergeGroups', () => {
  it('merges several groups in one batch: an edge between two absorbed entities joins the two survivors', async () => {
    const deps = graphDeps();
    await seed(deps);
    const done = await mergeGroups(
      deps,
      scope,
      [
        { sourceIds: ['ALICE'], targetId: 'ALICE_SMITH', reason: 'same person' },
        { sourceIds: ['CAROL'], targetId: 'DAVE', reason: 'same person' },
        { sourceIds: ['NOBODY'], targetId: 'BOB', reason: 'gone' },
      ],
      { cause: 'resolution', carry: true },
    );
    expect(done.merged.map((g) => g.targetId)).toEqual(['ALICE_SMITH', 'DAVE']);
    expect(done.missing).toEqual([{ group: expect.objectContaining({ targetId: 'BOB' }), ids: ['NOBODY'] }]);
    const { graph, chunks, kv, documents } = deps.stores;
    expect((await graph.listEntities(scope, { limit: 10, offset: 0 })).items.map((e) => e.id)).toEqual(['ALICE_SMITH', 'BOB', 'DAVE']);
    const relationships = (await graph.listRelationships(scope, { limit: 100, offset: 0 })).items;
    expect(relationships.map((r) => r.id)).toEqual(['ALICE_SMITH|BOB', 'ALICE_SMITH|DAVE', 'BOB|DAVE']);
    expect((await chunks.getMany(scope, ['doc-2-chunk-0']))[0]).toMatchObject({
      entity_ids: ['ALICE_SMITH', 'DAVE'],
      relationship_ids: ['ALICE_SMITH|DAVE'],
    });
    expect(await kv.getMany(scope, ALIASES_NAMESPACE, ['ALICE', 'CAROL'])).toEqual(
      new Map([
        ['ALICE', 'ALICE_SMITH'],
        ['CAROL', 'DAVE'],
      ]),
    );
    expect(await kv.get(scope, MERGE_HISTORY_NAMESPACE, 'DAVE')).toEqual([
      { date: expect.any(String), merged_from: ['CAROL'], reason: 'same person' },
    ]);
    expect(await documents.get(scope, 'doc-2')).toMatchObject({ entity_count: 2, relationship_count: 1 });
    expect(deps.published).toHaveLength(1);
    expect(deps.published[0].changes.filter((c) => c.kind === 'node_removed').map((c) => c.id)).toEqual(['ALICE', 'CAROL']);
  });

  it('refuses groups that share an entity before taking any lock', async () => {
    const deps = graphDeps();
    await seed(deps);
    const groups = [
      { sourceIds: ['ALICE'], targetId: 'ALICE_SMITH', reason: 'same person' },
      { sourceIds: ['ALICE_SMITH'], targetId: 'CAROL', reason: 'same person' },
    ];
    await expect(mergeGroups(deps, scope, groups, { cause: 'resolution', carry: true })).rejects.toThrow('must not share an entity');
    expect(deps.published).toHaveLength(0);
  });
});

describe('applyMerges', () => {
  it('applies a call as if one merge after the other: chains follow, repeats and unknown ids are skipped', async () => {
    const deps = graphDeps();
    await seed(deps);
    const reason = 'same name';
    const out = await applyMerges(deps, scope, [
      { source_id: 'ALICE', target_id: 'ALICE_SMITH', reason },
      { source_id: 'ALICE_SMITH', target_id: 'CAROL', reason },
      { source_id: 'alice', target_id: 'CAROL', reason },
      { source_id: 'NOBODY', target_id: 'DAVE', reason },
    ]);
    expect(out.applied).toEqual([
      { source_id: 'ALICE', target_id: 'ALICE_SMITH' },
      { source_id: 'ALICE_SMITH', target_id: 'CAROL' },
    ]);
    expect(out.skipped).toEqual([
      { source_id: 'alice', target_id: 'CAROL', reason: 'already one entity' },
      { source_id: 'NOBODY', target_id: 'DAVE', reason: 'entity not found: NOBODY' },
    ]);
    const { graph, kv } = deps.stores;
    expect(await graph.getEntity(scope, 'CAROL')).toMatchObject({ document_ids: expect.arrayContaining(['doc-1', 'doc-2']) });
    expect(await resolveEntityAlias(kv, scope, 'ALICE')).toBe('CAROL');
    expect(await resolveEntityAlias(kv, scope, 'ALICE_SMITH')).toBe('CAROL');
    const relationships = (await graph.listRelationships(scope, { limit: 100, offset: 0 })).items;
    expect(relationships.map((r) => r.id)).toEqual(['BOB|CAROL', 'BOB|DAVE']);
    expect(deps.published).toHaveLength(1);
  });
});

describe('renameEntity and updateEntity', () => {
  it('renames into a fresh id: relationships, chunks and aliases follow, and the new node is announced', async () => {
    const deps = graphDeps();
    await seed(deps);
    const outcome = await renameEntity(deps, scope, 'bob', { name: 'Robert  Jones' });
    expect(outcome).toMatchObject({ previous_id: 'BOB', merged: false, entity: { id: 'ROBERT_JONES', name: 'Robert Jones' } });
    const { graph, chunks, kv } = deps.stores;
    expect(await graph.getEntity(scope, 'BOB')).toBeNull();
    const ids = (await graph.relationshipsOf(scope, ['ROBERT_JONES'])).map((r) => r.id);
    expect(ids).toEqual(['ALICE_SMITH|ROBERT_JONES', 'ALICE|ROBERT_JONES', 'DAVE|ROBERT_JONES']);
    expect((await chunks.get(scope, 'doc-1-chunk-1'))?.relationship_ids).toEqual(['ALICE_SMITH|ROBERT_JONES', 'DAVE|ROBERT_JONES']);
    expect(await kv.get(scope, ALIASES_NAMESPACE, 'BOB')).toBe('ROBERT_JONES');
    expect(await kv.get(scope, OVERRIDES_NAMESPACE, 'ROBERT_JONES')).toMatchObject({ name: 'Robert Jones' });
    expect(deps.published[0].cause).toBe('rename');
    expect(deps.published[0].changes[0]).toEqual({ kind: 'node_added', id: 'ROBERT_JONES' });
  });

  it('refuses with a conflict when the new name belongs to another entity, and merges into it when asked', async () => {
    const deps = graphDeps();
    await seed(deps);
    await expect(renameEntity(deps, scope, 'ALICE', { name: 'alice smith' })).rejects.toMatchObject({
      kind: 'conflict',
      existingId: 'ALICE_SMITH',
    });
    expect(await deps.stores.graph.getEntity(scope, 'ALICE')).not.toBeNull();
    const outcome = await renameEntity(deps, scope, 'ALICE', { name: 'alice smith', merge: true });
    expect(outcome).toMatchObject({ merged: true, entity: { id: 'ALICE_SMITH' } });
    expect(await deps.stores.graph.getEntity(scope, 'ALICE')).toBeNull();
  });

  it('changes only the display name when the id stays the same', async () => {
    const deps = graphDeps();
    await seed(deps);
    const outcome = await renameEntity(deps, scope, 'CAROL', { name: 'CAROL' });
    expect(outcome.entity).toMatchObject({ id: 'CAROL', name: 'CAROL' });
    expect(deps.published[0].changes).toEqual([{ kind: 'node_updated', id: 'CAROL' }]);
  });

  it('updates description and type, re-embeds the entity, records the override and publishes node_updated', async () => {
    const deps = graphDeps();
    await seed(deps);
    const updated = await updateEntity(deps, scope, 'dave', { description: ' A pilot ', entity_type: 'person of interest' });
    expect(updated).toMatchObject({ id: 'DAVE', description: 'A pilot', entity_type: 'PERSON_OF_INTEREST' });
    expect(deps.embedded).toEqual(['Dave: A pilot']);
    expect((await deps.stores.graph.stats(scope)).node_types.PERSON_OF_INTEREST).toBe(1);
    expect(deps.published[0]).toMatchObject({ cause: 'edit', changes: [{ kind: 'node_updated', id: 'DAVE' }] });
    expect(await deps.stores.kv.get(scope, OVERRIDES_NAMESPACE, 'DAVE')).toEqual({
      description: 'A pilot',
      entity_type: 'PERSON_OF_INTEREST',
      updated_at: expect.any(String),
    });
    await expect(updateEntity(deps, otherScope, 'DAVE', { description: 'x' })).rejects.toMatchObject({ kind: 'not_found' });
  });
});
