import { accountStoreContract } from './accounts.contract';
import { analyticsStoreContract } from './analytics.contract';
import { chunkStoreContract } from './chunks.contract';
import { communityStoreContract } from './communities.contract';
import { conversationStoreContract } from './conversations.contract';
import { costStoreContract } from './costs.contract';
import { documentStoreContract } from './documents.contract';
import { graphStoreContract } from './graph.contract';
import type { StoresCleanup, StoresFactory } from './harness';
import { keyValueStoreContract } from './kv.contract';
import { lockStoreContract } from './locks.contract';
import { retrievalReadsContract } from './retrieval.contract';
import { storesContract } from './stores.contract';
import { taskStoreContract } from './tasks.contract';
import { vectorStoreContract } from './vectors.contract';

export { accountStoreContract, chunkStoreContract, conversationStoreContract, documentStoreContract, graphStoreContract };
export { analyticsStoreContract, communityStoreContract };
export { keyValueStoreContract, lockStoreContract, storesContract, taskStoreContract, vectorStoreContract };
export { costStoreContract, retrievalReadsContract };
export type { StoresCleanup, StoresFactory };

/** Every port's contract against one implementation. */
export function allStoreContracts(name: string, makeStores: StoresFactory, cleanup?: StoresCleanup): void {
  documentStoreContract(name, makeStores, cleanup);
  chunkStoreContract(name, makeStores, cleanup);
  graphStoreContract(name, makeStores, cleanup);
  vectorStoreContract(name, makeStores, cleanup);
  taskStoreContract(name, makeStores, cleanup);
  conversationStoreContract(name, makeStores, cleanup);
  keyValueStoreContract(name, makeStores, cleanup);
  lockStoreContract(name, makeStores, cleanup);
  storesContract(name, makeStores, cleanup);
  accountStoreContract(name, makeStores, cleanup);
  costStoreContract(name, makeStores, cleanup);
  communityStoreContract(name, makeStores, cleanup);
  analyticsStoreContract(name, makeStores, cleanup);
  retrievalReadsContract(name, makeStores, cleanup);
}
