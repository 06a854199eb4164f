#!/usr/bin/env node
// Smoke test for a running test Neo4j: node, vector index, full-text index and the constraint kinds
// this project cares about. Usage: node scripts/neo4j/verify.cjs [bolt://127.0.0.1:PORT]
// (default: the URL in build/neo4j/url, written by `scripts/neo4j/neo4j.sh start`).
// Exits non-zero if something that must work on community 5.26 does not.
'use strict';
const fs = require('fs');
const path = require('path');

const repo = path.resolve(__dirname, '..', '..');
const neo4j = require(path.join(repo, 'node_modules', 'neo4j-driver'));

const url = process.argv[2] || fs.readFileSync(path.join(repo, 'build', 'neo4j', 'url'), 'utf8').trim();

async function main() {
  const driver = neo4j.driver(url, neo4j.auth.none(), { disableLosslessIntegers: true });
  const results = [];
  let failed = false;
  const run = async (q, p) => (await driver.executeQuery(q, p || {})).records.map((r) => r.toObject());
  // `must`: required on community; otherwise the outcome is only reported.
  const check = async (name, must, fn) => {
    const t0 = Date.now();
    try {
      const detail = await fn();
      results.push({ name, ok: true, ms: Date.now() - t0, detail });
    } catch (e) {
      if (must) failed = true;
      results.push({
        name,
        ok: false,
        ms: Date.now() - t0,
        detail: String(e.code || '') + ' ' + String(e.message).split('\n').slice(0, 2).join(' '),
      });
    }
  };
  // A check that one statement runs.
  const statement = (name, must, query) =>
    check(name, must, async () => {
      await run(query);
      return 'ok';
    });

  try {
    await driver.verifyConnectivity();
    const info = await driver.getServerInfo();
    console.log(`connected: ${info.agent} protocol ${info.protocolVersion}`);
    await run('MATCH (n) DETACH DELETE n');
    for (const r of await run('SHOW CONSTRAINTS YIELD name RETURN name')) await run(`DROP CONSTRAINT \`${r.name}\``);
    for (const r of await run("SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP' RETURN name")) await run(`DROP INDEX \`${r.name}\``);

    await check('create node', true, async () => (await run("CREATE (n:Smoke {id: 'a'}) RETURN n.id AS id"))[0].id);

    await check('vector index (8 dims, cosine) + db.index.vector.queryNodes', true, async () => {
      await run(
        'CREATE VECTOR INDEX chunk_embedding IF NOT EXISTS FOR (c:Chunk) ON c.embedding ' +
          "OPTIONS {indexConfig: {`vector.dimensions`: 8, `vector.similarity_function`: 'cosine'}}",
      );
      await run('CALL db.awaitIndexes(60)');
      await run('CREATE (:Chunk {id: 1, embedding: $a}), (:Chunk {id: 2, embedding: $b})', {
        a: [1, 0, 0, 0, 0, 0, 0, 0],
        b: [0, 1, 0, 0, 0, 0, 0, 0],
      });
      const rows = await run("CALL db.index.vector.queryNodes('chunk_embedding', 2, $q) YIELD node, score RETURN node.id AS id, score", {
        q: [0.9, 0.1, 0, 0, 0, 0, 0, 0],
      });
      if (rows.length !== 2 || rows[0].id !== 1) throw new Error('unexpected result ' + JSON.stringify(rows));
      return JSON.stringify(rows);
    });
    await check('db.create.setNodeVectorProperty', false, async () => {
      await run("MATCH (c:Chunk {id: 2}) CALL db.create.setNodeVectorProperty(c, 'embedding', $v)", {
        v: [0, 0, 1, 0, 0, 0, 0, 0],
      });
      return 'ok';
    });
    await check(
      'vector.similarity.cosine()',
      false,
      async () => (await run('RETURN vector.similarity.cosine([1.0,0.0],[1.0,0.0]) AS s'))[0].s,
    );
    await check('relationship vector index', false, async () => {
      await run(
        'CREATE VECTOR INDEX rel_embedding IF NOT EXISTS FOR ()-[r:REL]-() ON r.embedding ' +
          "OPTIONS {indexConfig: {`vector.dimensions`: 8, `vector.similarity_function`: 'euclidean'}}",
      );
      return 'ok';
    });

    await check('fulltext index + db.index.fulltext.queryNodes', true, async () => {
      await run('CREATE FULLTEXT INDEX entity_text IF NOT EXISTS FOR (n:Entity|Chunk) ON EACH [n.name, n.text]');
      await run('CALL db.awaitIndexes(60)');
      await run("CREATE (:Entity {workspace_id: 'w', id: 'e1', name: 'Ada Lovelace'})");
      const rows = await run(
        "CALL db.index.fulltext.queryNodes('entity_text', 'lovelace') YIELD node, score RETURN node.name AS name, score",
      );
      if (rows.length !== 1) throw new Error('unexpected result ' + JSON.stringify(rows));
      return JSON.stringify(rows);
    });
    await statement(
      'relationship fulltext index',
      false,
      'CREATE FULLTEXT INDEX rel_text IF NOT EXISTS FOR ()-[r:MENTIONS]-() ON EACH [r.text]',
    );

    await check('composite uniqueness constraint (Entity: workspace_id, id)', true, async () => {
      await run('CREATE CONSTRAINT x IF NOT EXISTS FOR (n:Entity) REQUIRE (n.workspace_id, n.id) IS UNIQUE');
      await run('CREATE CONSTRAINT x IF NOT EXISTS FOR (n:Entity) REQUIRE (n.workspace_id, n.id) IS UNIQUE'); // idempotent
      try {
        await run("CREATE (:Entity {workspace_id: 'w', id: 'e1'})");
      } catch (e) {
        return 'enforced: ' + e.code;
      }
      throw new Error('duplicate was accepted');
    });
    await statement(
      'single-property uniqueness constraint',
      true,
      'CREATE CONSTRAINT doc_id IF NOT EXISTS FOR (d:Document) REQUIRE d.id IS UNIQUE',
    );
    await statement(
      'relationship uniqueness constraint',
      false,
      'CREATE CONSTRAINT rel_uniq IF NOT EXISTS FOR ()-[r:RELATES]-() REQUIRE r.id IS UNIQUE',
    );
    await statement(
      'range index (composite)',
      true,
      'CREATE INDEX entity_ws_name IF NOT EXISTS FOR (n:Entity) ON (n.workspace_id, n.name)',
    );
    await statement('text index', false, 'CREATE TEXT INDEX entity_name_text IF NOT EXISTS FOR (n:Entity) ON (n.name)');
    await statement('point index', false, 'CREATE POINT INDEX place_loc IF NOT EXISTS FOR (n:Place) ON (n.loc)');
    // Expected to fail on community edition (enterprise-only):
    await statement(
      'node key constraint (enterprise-only)',
      false,
      'CREATE CONSTRAINT nk IF NOT EXISTS FOR (n:Keyed) REQUIRE (n.a, n.b) IS NODE KEY',
    );
    await statement(
      'property existence constraint (enterprise-only)',
      false,
      'CREATE CONSTRAINT ex IF NOT EXISTS FOR (n:Keyed) REQUIRE n.a IS NOT NULL',
    );
    await statement(
      'property type constraint (enterprise-only)',
      false,
      'CREATE CONSTRAINT ty IF NOT EXISTS FOR (n:Keyed) REQUIRE n.a IS :: STRING',
    );

    await check('SHOW INDEXES', false, async () =>
      (await run('SHOW INDEXES YIELD name, type, state RETURN name, type, state ORDER BY name'))
        .map((r) => `${r.name}:${r.type}:${r.state}`)
        .join(' '),
    );
  } finally {
    await driver.close();
  }
  for (const r of results) console.log(`${r.ok ? 'OK  ' : 'FAIL'} ${r.name} (${r.ms} ms)${r.detail ? ' - ' + r.detail : ''}`);
  if (failed) {
    console.log('NEO4J_VERIFY_FAILED');
    process.exit(1);
  }
  console.log('NEO4J_VERIFY_OK');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
