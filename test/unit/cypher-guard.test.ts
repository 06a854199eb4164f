import fs from 'node:fs';
import path from 'node:path';
import { Neo4jError } from 'neo4j-driver';
import { ForbiddenError, InvalidInputError, UnavailableError } from '../../src/domain/errors';
import { checkReadOnlyCypher } from '../../src/graph/cypher-guard';
import { translate } from '../../src/store/neo4j/analyst-cypher';

/** The refusal a query meets, as `[kind, construct]`, or null when it may run. */
function verdict(query: string): [string, unknown] | null {
  try {
    checkReadOnlyCypher(query);
    return null;
  } catch (err) {
    if (err instanceof ForbiddenError) return ['forbidden', err.details.refused];
    if (err instanceof InvalidInputError) return ['invalid', err.fieldErrors[0].field];
    throw err;
  }
}

describe('analysts’ Cypher: what is refused before Neo4j sees it', () => {
  it.each([
    ['LOAD CSV from a file', "LOAD CSV FROM 'file:///etc/passwd' AS line RETURN line", 'LOAD CSV'],
    ['LOAD CSV from a URL', "LOAD CSV WITH HEADERS FROM 'http://127.0.0.1:7474/' AS row RETURN row", 'LOAD CSV'],
    ['LOAD CSV after a reading clause', "WITH 1 AS x LOAD CSV FROM 'file:///etc/passwd' AS line RETURN line", 'LOAD CSV'],
    ['LOAD CSV split by a comment, in lower case', "load/* hidden */csv from 'file:///etc/passwd' as l return l", 'LOAD CSV'],
    ['LOAD CSV in a subquery', "MATCH (n) CALL { LOAD CSV FROM 'file:///etc/passwd' AS l RETURN l } RETURN l", 'LOAD CSV'],
    ['dbms.listConfig', 'CALL dbms.listConfig()', 'CALL dbms.listConfig'],
    ['dbms.* after a clause', 'MATCH (n) WITH n LIMIT 1 CALL dbms.components() YIELD name RETURN name', 'CALL dbms.components'],
    ['dbms.* in backticks', 'CALL `dbms`.`listConfig`() YIELD name RETURN name', 'CALL dbms.listConfig'],
    ['an administrative db.* procedure', 'CALL db.createLabel("X")', 'CALL db.createLabel'],
    ['db.clearQueryCaches', 'CALL db.clearQueryCaches()', 'CALL db.clearQueryCaches'],
    ['an unknown procedure (apoc)', "CALL apoc.load.json('file:///etc/passwd') YIELD value RETURN value", 'CALL apoc.load.json'],
    ['an unknown function (apoc)', 'RETURN apoc.util.sleep(1000) AS x', 'the function apoc.util.sleep'],
    ['SHOW USERS', 'SHOW USERS', 'SHOW'],
    ['SHOW TRANSACTIONS', 'SHOW TRANSACTIONS YIELD transactionId RETURN transactionId', 'SHOW'],
    ['TERMINATE TRANSACTIONS', "TERMINATE TRANSACTIONS 'neo4j-transaction-1'", 'TERMINATE'],
    ['SHOW after a reading clause', 'MATCH (n) RETURN n UNION SHOW DATABASES', 'SHOW'],
    ['CREATE USER', "CREATE USER eve SET PASSWORD 'secret-password'", 'CREATE'],
    ['ALTER USER', "ALTER USER neo4j SET PASSWORD 'x'", 'ALTER'],
    ['GRANT', 'GRANT ROLE admin TO eve', 'GRANT'],
    ['DENY', 'DENY READ {*} ON GRAPH * TO reader', 'DENY'],
    ['REVOKE', 'REVOKE ROLE admin FROM eve', 'REVOKE'],
    ['DROP DATABASE', 'DROP DATABASE neo4j', 'DROP'],
    ['STOP DATABASE', 'STOP DATABASE neo4j', 'STOP'],
    ['USE another database', 'USE system MATCH (n) RETURN n', 'USE'],
    ['USE inside a subquery', 'MATCH (n) CALL { USE system MATCH (m) RETURN m } RETURN m', 'USE'],
    ['CREATE', "CREATE (n:Probe {id: 'x'}) RETURN n", 'CREATE'],
    ['MERGE after MATCH', 'MATCH (n) MERGE (n)-[:X]->(m) RETURN m', 'MERGE'],
    ['SET', "MATCH (n) SET n.description = 'x'", 'SET'],
    ['DETACH DELETE', 'MATCH (n) DETACH DELETE n', 'DETACH DELETE'],
    ['REMOVE', 'MATCH (n) REMOVE n:Entity', 'REMOVE'],
    ['FOREACH', 'MATCH (n) FOREACH (x IN [1] | SET n.a = x)', 'FOREACH'],
    ['CALL IN TRANSACTIONS', 'UNWIND [1] AS x CALL { WITH x RETURN x AS y } IN TRANSACTIONS RETURN y', 'IN TRANSACTIONS'],
    ['a second statement', 'MATCH (n) RETURN n; SHOW USERS', 'more than one statement'],
    ['a write behind EXPLAIN', 'EXPLAIN CREATE (n)', 'CREATE'],
    ['a CYPHER prefix before a write', 'CYPHER runtime=slotted CREATE (n)', 'CREATE'],
  ])('refuses %s with 403 naming it', (_, query, construct) => {
    expect(verdict(query)).toEqual(['forbidden', construct]);
  });

  it.each([
    ['an unclosed string', "MATCH (n) WHERE n.name = 'x RETURN n"],
    ['an unclosed comment', 'MATCH (n) /* RETURN n'],
    ['an unclosed backtick name', 'MATCH (`n) RETURN 1'],
    ['no clause at all', '// only a comment'],
  ])('answers 422 naming the query for %s', (_, query) => {
    expect(verdict(query)).toEqual(['invalid', 'query']);
  });

  it.each([
    ['keywords inside strings and comments', "MATCH (n) WHERE n.name = 'LOAD CSV; SHOW USERS' // CALL dbms.listConfig()\nRETURN n"],
    [
      'keywords as property keys, labels, types and map keys',
      'MATCH (n:Set)-[r:DELETE|Create]->(m) RETURN n.set, {load: 1, show: n.create} AS m',
    ],
    ['keywords as backtick names', 'MATCH (`load`)-[`set`]->(`create`) RETURN `load`, `set`'],
    ['administration words as variables', 'MATCH (start)-->(stop) RETURN start, stop'],
    [
      'allowed procedures',
      'CALL db.labels() YIELD label RETURN label UNION CALL db.relationshipTypes() YIELD relationshipType AS label RETURN label',
    ],
    ['a vector index search', 'CALL db.index.vector.queryNodes($index, 5, $vector) YIELD node, score RETURN node, score'],
    ['subqueries', 'MATCH (e:Entity) CALL { WITH e MATCH (e)--(m) RETURN count(m) AS c } RETURN e, c, COUNT { (e)--() } AS d'],
    [
      'built-in namespaced functions',
      'RETURN date.truncate("day", date()) AS d, point.distance(point({x: 0, y: 0}), point({x: 1, y: 1})) AS p, db.nameFromElementId("x") AS n',
    ],
    ['EXPLAIN, PROFILE and a trailing semicolon', 'PROFILE MATCH (n) RETURN n LIMIT 1;'],
    ['a CYPHER version prefix', 'CYPHER 5 MATCH (n) RETURN n'],
    ['parameters named like keywords', 'MATCH (n {id: $create}) RETURN n LIMIT $limit'],
    ['ranges and numbers', 'MATCH p = shortestPath((a)-[*..6]-(b)) RETURN p, 1.5e3, 0x1F'],
  ])('lets %s through', (_, query) => {
    expect(verdict(query)).toBeNull();
  });

  it('lets the ten examples of cypher/README.md through', () => {
    const text = fs.readFileSync(path.resolve(__dirname, '../../cypher/README.md'), 'utf8');
    const block = /```cypher\n([\s\S]*?)```/.exec(text.slice(text.indexOf('## For analysts')))?.[1] ?? '';
    const queries = block.split(/;\s*\n/).filter((q) => q.trim());
    expect(queries).toHaveLength(10);
    for (const query of queries) expect(verdict(query)).toBeNull();
  });
});

describe('analysts’ Cypher: Neo4j errors as problems', () => {
  const neo4jError = (message: string, code: string) => new Neo4jError(message, code, '50N42', 'error: general processing exception');
  const mapped = (code: string, message = 'what Neo4j said') => translate(neo4jError(message, code), 500);

  it.each([
    ['Neo.ClientError.Statement.SyntaxError', InvalidInputError],
    ['Neo.ClientError.Statement.ExternalResourceFailed', InvalidInputError],
    ['Neo.ClientError.Procedure.ProcedureNotFound', InvalidInputError],
    ['Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration', InvalidInputError],
    ['Neo.DatabaseError.General.UnknownError', InvalidInputError],
    ['Neo.DatabaseError.Statement.ExecutionFailed', InvalidInputError],
    ['Neo.TransientError.General.MemoryPoolOutOfMemoryError', InvalidInputError],
    ['Neo.ClientError.Security.Forbidden', ForbiddenError],
    ['Neo.ClientError.Statement.AccessMode', ForbiddenError],
  ])('maps %s to a 4xx', (code, kind) => {
    expect(mapped(code)).toBeInstanceOf(kind);
  });

  it('maps a Neo4jError without a code to a 422 naming the query', () => {
    const err = mapped('', 'Failed to fetch http://127.0.0.1:1/x');
    expect(err).toBeInstanceOf(InvalidInputError);
    expect((err as InvalidInputError).message).toContain('Failed to fetch');
  });

  it('passes outages and a busy database through, to answer 503', () => {
    for (const code of ['ServiceUnavailable', 'SessionExpired', 'Neo.TransientError.Transaction.LockClientStopped']) {
      const err = neo4jError('down', code);
      expect(translate(err, 500)).toBe(err);
    }
    const pool = neo4jError('Connection acquisition timed out in 60000 ms.', '');
    expect(translate(pool, 500)).toBe(pool);
    const ours = new UnavailableError('down', 'neo4j');
    expect(translate(ours, 500)).toBe(ours);
  });
});
