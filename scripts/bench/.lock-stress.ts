import { createLogger } from '../../src/logger';
import { createNeo4jStores } from '../../src/store/neo4j';
async function main() {
  const settings = { uri: process.argv[2], user: null, password: null, database: null };
  const a = await createNeo4jStores({ neo4j: settings, dimension: 256, log: createLogger('silent') });
  const b = await createNeo4jStores({ neo4j: settings, dimension: 256, log: createLogger('silent') });
  const scope = { workspaceId: 'stress-' + Date.now() };
  let holder: string | null = null;
  let violations = 0, errors = 0, wins = 0;
  const worker = async (stores: typeof a, owner: string, rounds: number) => {
    for (let i = 0; i < rounds; i++) {
      const keys = i % 2 ? ['A', 'B'] : ['B', 'C'];
      try {
        if (await stores.locks.acquire(scope, keys, owner, 30000)) {
          wins++;
          if (holder !== null) violations++;
          holder = owner;
          await new Promise((r) => setImmediate(r));
          holder = null;
          await stores.locks.release(scope, keys, owner);
        }
      } catch (err) { errors++; console.error(owner, (err as Error).message.slice(0, 200)); }
    }
  };
  const t = Date.now();
  await Promise.all(['o1','o2','o3','o4','o5','o6','o7','o8'].map((o, i) => worker(i % 2 ? a : b, o, 200)));
  console.log({ wins, violations, errors, ms: Date.now() - t });
  await a.dropWorkspace(scope);
  await a.close(); await b.close();
}
main();
