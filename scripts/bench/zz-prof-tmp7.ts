// throwaway: repeated entity passes on one instance, Neo4j CPU per pass
import fs from 'node:fs';
import { createLogger } from '../../src/logger';
import { createNeo4jStores } from '../../src/store/neo4j';
import { benchEntityWrites } from './neo4j-entity-writes';
import { buildCorpus } from './query-corpus';
const [uri, pid] = [process.argv[2], Number(process.argv[3])];
const cpu = () => { const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' '); return (Number(f[11]) + Number(f[12])) / 100; };
(async () => {
  const stores = await createNeo4jStores({ neo4j: { uri, user: null, password: null, database: null }, dimension: 256, log: createLogger('silent') });
  const { chunks } = buildCorpus(10000);
  await stores.chunks.upsertMany({ workspaceId: 'w' }, chunks);
  for (let rep = 0; rep < 2; rep++) {
    const scope = { workspaceId: `v-${rep}` };
    await stores.chunks.upsertMany(scope, chunks);
    const { passes } = await benchEntityWrites(stores, scope, { entities: 20000, batch: 1000, chunkIds: chunks.map((c) => c.id), serverCpuSeconds: cpu });
    console.log(rep, fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0], passes.map((p) => `${p.pass.split(' ')[0]} ${p.perSecond.toFixed(0)}/s neo4jCPU ${p.neo4jCpuSeconds?.toFixed(1)}s`).join(' | '));
  }
  await stores.close();
})();
