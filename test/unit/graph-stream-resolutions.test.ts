import { GraphEvents } from '../../src/graph/events';
import { createGraphService } from '../../src/graph/service';
import { MemoryChangeFeed } from '../../src/store/memory/change-feed';
import { makeEntity } from '../contract/fixtures';
import { graphDeps, scope } from './graph-fixtures';

/** The change batches a graph stream reads are its graph service's: two services never answer from each other's reads. */

test('two graph services on one change feed read each change batch from their own stores', async () => {
  const feed = new MemoryChangeFeed(100);
  const controller = new AbortController();
  const instances = await Promise.all(
    ['as the first knows her', 'as the second knows her'].map(async (description) => {
      const deps = { ...graphDeps(), events: new GraphEvents(feed) };
      await deps.stores.graph.upsertEntities(scope, [makeEntity('ALICE', { description })]);
      const stream = createGraphService(deps).stream(scope, { batchSize: 10, depth: 1, maxNodes: 10 });
      const events = stream.events({ signal: controller.signal, buffered: () => 0 });
      for (let next = await events.next(); !next.done && next.value.event.type !== 'done'; next = await events.next());
      return { deps, events };
    }),
  );
  try {
    instances[0].deps.events.publish({ scope, changes: [{ kind: 'node_updated', id: 'ALICE' }], cause: 'edit' });
    const received = await Promise.all(instances.map(({ events }) => events.next()));
    expect(received.map((r) => (r.value as { event: { node?: { description: string } } }).event.node?.description)).toEqual([
      'as the first knows her',
      'as the second knows her',
    ]);
  } finally {
    controller.abort();
    await Promise.all(instances.map(({ events }) => events.return()));
  }
});
