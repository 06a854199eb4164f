import { LlmCache } from '../../src/llm/cache/responses';
import { GraphEvents, type GraphChangeBatch } from '../../src/graph/events';
import type { GraphDeps } from '../../src/graph/deps';
import { createEntityLocks } from '../../src/records/locks';
import type { ProviderRegistry } from '../../src/llm/ports';
import { MockEmbeddings } from '../../src/llm/mock';
import { createMemoryStores } from '../../src/store/memory';
import type { Scope } from '../../src/domain/types';

/** Graph services over the embedded stores, with offline embeddings and a record of published changes. */
export function graphDeps(): GraphDeps & { published: GraphChangeBatch[]; embedded: string[] } {
  const stores = createMemoryStores();
  const events = new GraphEvents();
  const published: GraphChangeBatch[] = [];
  events.subscribe((batch) => published.push(batch));
  const embeddings = new MockEmbeddings('mock', 'mock-embedding', 16);
  const embedded: string[] = [];
  const providers = {
    embedding: () => ({
      provider: 'mock',
      model: 'mock-embedding',
      dimension: 16,
      embed: (texts: string[]) => {
        embedded.push(...texts);
        return embeddings.embed(texts);
      },
    }),
  } as unknown as ProviderRegistry;
  let minute = 0;
  const now = () => new Date(Date.parse('2024-05-01T00:00:00.000Z') + minute++ * 60_000).toISOString();
  return { stores, events, providers, entityLocks: createEntityLocks(stores.locks), llmCache: new LlmCache(), now, published, embedded };
}

export const scope: Scope = { workspaceId: 'ws-graph' };
export const otherScope: Scope = { workspaceId: 'ws-other' };
