import { randomUUID } from 'node:crypto';
import neo4j, { type Driver } from 'neo4j-driver';
import { createLogger } from '../../src/logger';
import { createNeo4jStores, Neo4jClient } from '../../src/store/neo4j';
import { cypherTemplate, cypherText, loadMigrations } from '../../src/store/neo4j/cypher';
import { Neo4jVectorStore } from '../../src/store/neo4j/vectors';
import type { VectorHit } from '../../src/domain/types';
import type { Stores } from '../../src/store/ports';
import { makeChunk, makeConversation, makeDocument, makeEntity, makeRelationship, seededRandom } from './fixtures';

/**
 * What Neo4j holds, read with plain Cypher the way a graph analyst would: labels, relationship types,
 * properties, constraints and migrations. Runs in the persistent pass of `npm test` (TEST_NEO4J_URI).
 */
jest.setTimeout(120_000);

const settings = { uri: process.env.TEST_NEO4J_URI as string, user: null, password: null, database: null };
const log = createLogger('silent');

let stores: Stores;
let driver: Driver;
const used: string[] = [];

async function cypher(query: string, params: Record<string, unknown> = {}) {
  const result = await driver.executeQuery(query, params);
  return result.records.map((r) => r.toObject());
}

function workspace(): { workspaceId: string } {
  const workspaceId = `ws-model-${randomUUID()}`;
  used.push(workspaceId);
  return { workspaceId };
}

beforeAll(async () => {
  stores = await createNeo4jStores({ neo4j: settings, dimension: 256, log });
  driver = neo4j.driver(settings.uri, undefined, { disableLosslessIntegers: true });
});

afterAll(async () => {
  for (const workspaceId of used) await stores.dropWorkspace({ workspaceId });
  await stores.close();
  await driver.close();
});

describe('neo4j: schema migrations', () => {
  it('records every numbered migration once as a :Migration node and reports them in schema()', async () => {
    const migrations = loadMigrations();
    const latest = Math.max(...migrations.map((m) => m.version));
    const schema = await stores.schema();
    expect(schema).toMatchObject({ latest_version: latest, migrations_applied: migrations.length });
    expect(Number.isNaN(Date.parse(schema.last_applied_at as string))).toBe(false);
    const rows = await cypher('MATCH (m:Migration) RETURN m.version AS version, m.name AS name ORDER BY version');
    expect(rows).toEqual(migrations.map((m) => ({ version: m.version, name: m.name })));
  });

  it('applies nothing on a second start: migrations are idempotent and recorded', async () => {
    const before = await cypher('MATCH (m:Migration) RETURN m.version AS version, m.applied_at AS applied_at ORDER BY version');
    const again = await createNeo4jStores({ neo4j: settings, dimension: 256, log });
    await again.close();
    expect(await cypher('MATCH (m:Migration) RETURN m.version AS version, m.applied_at AS applied_at ORDER BY version')).toEqual(before);
  });

  it('enforces (tenant_id, workspace_id, id) uniqueness for records', async () => {
    const { workspaceId } = workspace();
    await stores.documents.insert({ workspaceId }, makeDocument({ id: 'doc-1' }));
    await expect(cypher("CREATE (:Document {tenant_id: '', workspace_id: $w, id: 'doc-1'})", { w: workspaceId })).rejects.toMatchObject({
      code: 'Neo.ClientError.Schema.ConstraintValidationFailed',
    });
    await cypher("CREATE (:Document {tenant_id: 'other', workspace_id: $w, id: 'doc-1'})", { w: workspaceId });
    expect(await stores.documents.get({ workspaceId, tenantId: 'other' }, 'doc-1')).not.toBeNull();
    await cypher("MATCH (d:Document {tenant_id: 'other', workspace_id: $w}) DELETE d", { w: workspaceId });
  });
});

describe('neo4j: the graph as analysts see it', () => {
  async function populate(scope: { workspaceId: string }) {
    // Chunks before their document and entities: links appear whichever arrives first.
    await stores.chunks.upsertMany(scope, [makeChunk('doc-1', 0, { entity_ids: ['ALICE', 'BOB'] })]);
    await stores.documents.insert(scope, makeDocument({ id: 'doc-1', title: 'Team notes' }));
    await stores.graph.upsertEntities(scope, [
      makeEntity('ALICE', { source_chunk_ids: ['doc-1-chunk-0'] }),
      makeEntity('BOB', { source_chunk_ids: ['doc-1-chunk-0'] }),
      makeEntity('ACME', { entity_type: 'organization', source_chunk_ids: [] }),
    ]);
    await stores.graph.upsertRelationships(scope, [
      makeRelationship('ALICE', 'BOB', { relation_type: 'works with', keywords: ['colleagues'], weight: 2 }),
    ]);
  }

  it('reads as (:Document)-[:HAS_CHUNK]->(:Chunk)-[:MENTIONS]->(:Entity:PERSON)-[:WORKS_WITH]->(:Entity)', async () => {
    const scope = workspace();
    await populate(scope);
    const path = await cypher(
      `MATCH (d:Document {workspace_id: $w, id: 'doc-1'})-[:HAS_CHUNK]->(c:Chunk)-[:MENTIONS]->(a:Entity:PERSON {id: 'ALICE'})
             -[r:WORKS_WITH]->(b:Entity:PERSON {id: 'BOB'})
       RETURN d.title AS title, c.index AS chunk, properties(r) AS rel`,
      { w: scope.workspaceId },
    );
    expect(path).toHaveLength(1);
    expect(path[0].title).toBe('Team notes');
    expect(path[0].chunk).toBe(0);
    expect(path[0].rel).toMatchObject({
      id: 'ALICE|BOB',
      workspace_id: scope.workspaceId,
      relation_type: 'works with',
      keywords: ['colleagues'],
      weight: 2,
      source_chunk_ids: ['doc-1-chunk-0'],
      document_ids: ['doc-1'],
    });
    expect(
      (await cypher('MATCH (e:Entity:ORGANIZATION {workspace_id: $w}) RETURN e.id AS id', { w: scope.workspaceId })).map((r) => r.id),
    ).toEqual(['ACME']);
  });

  it('puts workspace_id on every node and relationship it writes', async () => {
    const scope = workspace();
    await populate(scope);
    const [row] = await cypher(
      `MATCH (n {workspace_id: $w})
       OPTIONAL MATCH (n)-[r]-()
       RETURN count(DISTINCT n) AS nodes, count(DISTINCT r) AS rels,
              count(DISTINCT CASE WHEN r.workspace_id = $w THEN r END) AS scoped`,
      { w: scope.workspaceId },
    );
    expect(row.nodes).toBe(5);
    expect(row.rels).toBe(4);
    expect(row.scoped).toBe(row.rels);
  });

  it('stores integers as integers, timestamps as ISO strings and nested objects as JSON text', async () => {
    const scope = workspace();
    await populate(scope);
    const [row] = await cypher(
      `MATCH (d:Document {workspace_id: $w, id: 'doc-1'})-[:HAS_CHUNK]->(c:Chunk)
       RETURN valueType(c.index) AS index, valueType(d.file_size) AS size, valueType(d.created_at) AS created,
              d.metadata AS metadata`,
      { w: scope.workspaceId },
    );
    expect(row).toEqual({
      index: 'INTEGER NOT NULL',
      size: 'INTEGER NOT NULL',
      created: 'STRING NOT NULL',
      metadata: JSON.stringify(makeDocument().metadata),
    });
  });

  it('reads a conversation stored before the pinned and archived flags as neither, and lists it by them', async () => {
    const scope = workspace();
    await stores.conversations.create(scope, makeConversation({ id: 'old', is_pinned: true }));
    await cypher(`MATCH (c:Conversation {workspace_id: $w, id: 'old'}) REMOVE c.is_pinned, c.is_archived`, { w: scope.workspaceId });
    expect(await stores.conversations.get(scope, 'old')).toMatchObject({ is_pinned: false, is_archived: false });
    const page = { limit: 5, offset: 0 };
    expect((await stores.conversations.list(scope, { ...page, pinned: false, archived: false })).total).toBe(1);
    expect((await stores.conversations.list(scope, { ...page, archived: true })).total).toBe(0);
  });

  it('builds labels and relationship types only from sanitised UPPER_SNAKE names, whatever the extracted text', async () => {
    const scope = workspace();
    const hostile = 'x`) DETACH DELETE n //';
    await stores.graph.upsertEntities(scope, [
      makeEntity('LAB', { entity_type: 'research lab' }),
      makeEntity('MODEL', { entity_type: '3d model' }),
      makeEntity('EVIL', { entity_type: hostile }),
      makeEntity('BLANK', { entity_type: '***' }),
    ]);
    await stores.graph.upsertRelationships(scope, [
      makeRelationship('LAB', 'MODEL', { relation_type: 'mentions' }),
      makeRelationship('EVIL', 'LAB', { relation_type: hostile }),
    ]);
    const labels = await cypher(
      "MATCH (e:Entity {workspace_id: $w}) RETURN e.id AS id, [l IN labels(e) WHERE l <> 'Entity'] AS labels, e.entity_type AS type ORDER BY id",
      { w: scope.workspaceId },
    );
    expect(labels).toEqual([
      { id: 'BLANK', labels: ['UNKNOWN'], type: '***' },
      { id: 'EVIL', labels: ['X_DETACH_DELETE_N'], type: hostile },
      { id: 'LAB', labels: ['RESEARCH_LAB'], type: 'research lab' },
      { id: 'MODEL', labels: ['T_3D_MODEL'], type: '3d model' },
    ]);
    const types = await cypher('MATCH (:Entity {workspace_id: $w})-[r]->(:Entity) RETURN r.id AS id, type(r) AS type ORDER BY id', {
      w: scope.workspaceId,
    });
    expect(types).toEqual([
      { id: 'EVIL|LAB', type: 'X_DETACH_DELETE_N' },
      { id: 'LAB|MODEL', type: 'MENTIONS_RELATION' },
    ]);
    // An extracted "mentions" relation never counts as a chunk mention.
    expect(await stores.graph.degrees(scope, ['LAB', 'MODEL'])).toEqual(
      new Map([
        ['LAB', 2],
        ['MODEL', 1],
      ]),
    );
  });

  it('moves a retyped entity to its new type label and keeps labels analysts added', async () => {
    const scope = workspace();
    await stores.graph.upsertEntities(scope, [makeEntity('ALICE')]);
    await cypher("MATCH (e:Entity {workspace_id: $w, id: 'ALICE'}) SET e:Reviewed", { w: scope.workspaceId });
    await stores.graph.upsertEntities(scope, [makeEntity('ALICE', { entity_type: 'ORGANIZATION' })]);
    const [row] = await cypher("MATCH (e:Entity {workspace_id: $w, id: 'ALICE'}) RETURN labels(e) AS labels", { w: scope.workspaceId });
    expect([...(row.labels as string[])].sort()).toEqual(['Entity', 'ORGANIZATION', 'Reviewed']);
  });
});

describe('neo4j: native vector indexes', () => {
  it('answers from the vector index above the exact-search size, narrowed to the workspace', async () => {
    const db = new Neo4jClient(settings);
    try {
      const dimension = 12;
      const store = new Neo4jVectorStore(db, dimension, 20, Infinity);
      await store.ensureIndexes();
      const [scope, other] = [workspace(), workspace()];
      const random = seededRandom(21);
      const points = Array.from({ length: 80 }, (_, i) => ({
        id: `p-${i}`,
        vector: Array.from({ length: dimension }, () => random() * 2 - 1),
        document_ids: ['doc-1'],
      }));
      await store.upsert(scope, 'chunk', points);
      await store.upsert(
        other,
        'chunk',
        points.map((p) => ({ ...p, id: `other-${p.id}` })),
      );
      const runs = jest.spyOn(Neo4jClient.prototype, 'readText');
      for (const target of [points[3], points[42], points[77]]) {
        const [best, ...rest] = await store.search(scope, 'chunk', target.vector, 5);
        expect(best.id).toBe(target.id);
        expect(best.score).toBeCloseTo(1, 5);
        expect(rest).toHaveLength(4);
        expect(rest.every((hit) => hit.id.startsWith('p-') && hit.score <= best.score)).toBe(true);
      }
      expect(runs.mock.calls.filter(([text]) => text.includes('db.index.vector.queryNodes'))).toHaveLength(3);
      runs.mockRestore();
      const [index] = await cypher("SHOW VECTOR INDEXES YIELD name, labelsOrTypes, properties WHERE name = 'chunk_embedding_12' RETURN *");
      expect(index).toEqual({ name: 'chunk_embedding_12', labelsOrTypes: ['ChunkVector'], properties: ['embedding_12'] });
    } finally {
      await db.close();
    }
  });

  it('rebuilds an index in one pass with the same answers, and searches exactly while the index is missing', async () => {
    const db = new Neo4jClient(settings);
    try {
      const dimension = 10;
      const store = new Neo4jVectorStore(db, dimension, 20, Infinity);
      await store.ensureIndexes();
      const scope = workspace();
      const random = seededRandom(33);
      const points = Array.from({ length: 90 }, (_, i) => ({
        id: `r-${i}`,
        vector: Array.from({ length: dimension }, () => random() * 2 - 1),
        document_ids: ['doc-1'],
      }));
      // Written in small batches, as ingestion writes them.
      for (let i = 0; i < points.length; i += 10) await store.upsert(scope, 'relationship', points.slice(i, i + 10));
      const targets = [points[5], points[50], points[88]];
      const before = await Promise.all(targets.map((t) => store.search(scope, 'relationship', t.vector, 5)));

      const rebuilt = await store.rebuildIndexes(['relationship']);
      expect(rebuilt).toEqual([
        { kind: 'relationship', index: 'relationship_embedding_10', vectors: expect.any(Number), ms: expect.any(Number) },
      ]);
      expect(rebuilt[0].vectors).toBeGreaterThanOrEqual(points.length);
      const [state] = await cypher("SHOW VECTOR INDEXES YIELD name, state WHERE name = 'relationship_embedding_10' RETURN state");
      expect(state).toEqual({ state: 'ONLINE' });
      const runs = jest.spyOn(Neo4jClient.prototype, 'readText');
      const after = await Promise.all(targets.map((t) => store.search(scope, 'relationship', t.vector, 5)));
      expect(after.map((hits) => hits.map((h) => h.id))).toEqual(before.map((hits) => hits.map((h) => h.id)));
      expect(after[0][0]).toEqual({ id: 'r-5', score: expect.closeTo(1, 5) });
      expect(runs.mock.calls.filter(([text]) => text.includes('db.index.vector.queryNodes'))).toHaveLength(3);

      // Another instance dropped the index to rebuild it: the search falls back to the exact statement.
      runs.mockClear();
      await cypher('DROP INDEX relationship_embedding_10');
      const exact = await store.search(scope, 'relationship', targets[1].vector, 5);
      expect(exact.map((h) => h.id)).toEqual(before[1].map((h) => h.id));
      expect(runs.mock.calls.map(([text]) => (text.includes('db.index.vector.queryNodes') ? 'index' : 'exact'))).toEqual([
        'index',
        'exact',
      ]);
      runs.mockRestore();
      await store.ensureIndexes();
    } finally {
      await db.close();
    }
  });

  /** `count` random points of `dimension` named `prefix-<i>`, all citing doc-1. */
  function randomPoints(seed: number, prefix: string, count: number, dimension: number) {
    const random = seededRandom(seed);
    return Array.from({ length: count }, (_, i) => ({
      id: `${prefix}-${i}`,
      vector: Array.from({ length: dimension }, () => random() * 2 - 1),
      document_ids: ['doc-1'],
    }));
  }

  /** What each vector search statement run while `act` ran was: an index search or an exact scan. */
  async function statementKinds(act: () => Promise<unknown>): Promise<string[]> {
    const texts = jest.spyOn(Neo4jClient.prototype, 'readText');
    const files = jest.spyOn(Neo4jClient.prototype, 'readRows');
    try {
      await act();
      const run = [
        ...texts.mock.calls.map(([text], i) => ({ text, order: texts.mock.invocationCallOrder[i] })),
        ...files.mock.calls.map(([name, , ids], i) => ({
          text: ids ? cypherTemplate(name, ids) : cypherText(name),
          order: files.mock.invocationCallOrder[i],
        })),
      ];
      return run
        .sort((a, b) => a.order - b.order)
        .map(({ text }) => text)
        .filter((text) => text.includes('vector.similarity.cosine') || text.includes('db.index.vector.queryNodes'))
        .map((text) => (text.includes('db.index.vector.queryNodes') ? 'index' : 'exact'));
    } finally {
      texts.mockRestore();
      files.mockRestore();
    }
  }

  it('scans a workspace that is a small share of the index rather than over-fetch from it', async () => {
    const db = new Neo4jClient(settings);
    try {
      const dimension = 11;
      const store = new Neo4jVectorStore(db, dimension, 20);
      await store.ensureIndexes();
      const [small, large] = [workspace(), workspace()];
      const smallPoints = randomPoints(46, 's', 30, dimension);
      const largePoints = randomPoints(47, 'l', 1000, dimension);
      await store.upsert(small, 'relationship', smallPoints);
      await store.upsert(large, 'relationship', largePoints);
      // 5 hits from a workspace holding 30 of the index's 1,030 or more vectors would take over 600 candidates.
      let hits: VectorHit[] = [];
      expect(await statementKinds(async () => (hits = await store.search(small, 'relationship', smallPoints[3].vector, 5)))).toEqual([
        'exact',
      ]);
      expect(hits[0]).toEqual({ id: 's-3', score: expect.closeTo(1, 5) });
      expect(hits.every((hit) => hit.id.startsWith('s-'))).toBe(true);
      expect(await statementKinds(() => store.search(large, 'relationship', largePoints[3].vector, 5))).toEqual(['index']);
    } finally {
      await db.close();
    }
  });

  it('fails start-up with one line naming SERVICE_EMBEDDING_DIMENSION when an index has another dimension', async () => {
    await cypher(
      "CREATE VECTOR INDEX entity_embedding_14 IF NOT EXISTS FOR (v:EntityVector) ON (v.embedding_14) OPTIONS {indexConfig: {`vector.dimensions`: 15, `vector.similarity_function`: 'cosine'}}",
    );
    try {
      await expect(createNeo4jStores({ neo4j: settings, dimension: 14, log })).rejects.toThrow(
        /^Neo4j vector index entity_embedding_14 holds 15-dimension vectors, not SERVICE_EMBEDDING_DIMENSION=14; [^\n]+$/,
      );
    } finally {
      await cypher('DROP INDEX entity_embedding_14 IF EXISTS');
      await cypher('DROP INDEX chunk_embedding_14 IF EXISTS');
    }
  });
});
