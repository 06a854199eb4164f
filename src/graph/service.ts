import type { Scope } from '../domain/types';
import type { GraphDeps } from './deps';
import { type CypherSettings, runAnalystCypher } from './cypher';
import { type EntityPatch, type RenameInput, renameEntity, updateEntity } from './edit';
import { type EntityInput, createEntity, deleteEntity } from './entity-lifecycle';
import { type EntityListQuery, type RelationshipListQuery, entityDetail, listEntities, listRelationships } from './entities';
import { type GraphQuery, exploreGraph, graphStats } from './explore';
import { degreesOf, entityExists, graphNode, neighborhood, popularLabels, searchLabels, searchNodes } from './lookup';
import { type MergeInput, mergeEntities } from './merge';
import { BatchResolutions, type GraphStreamQuery, graphFeed } from './stream';
import { workspaceStats } from './workspace-stats';

export interface GraphSettings {
  /** Silence after which the graph stream sends a heartbeat event. */
  streamKeepAliveMs: number;
  cypher: CypherSettings;
  /** Slow subscribers of the graph stream are dropped past either bound. */
  stream: { maxBufferedBytes: number; maxQueuedBatches: number };
}

const DEFAULT_SETTINGS: GraphSettings = {
  streamKeepAliveMs: 15_000,
  cypher: { enabled: false, timeoutMs: 10_000, maxRows: 1_000 },
  stream: { maxBufferedBytes: 4 * 1024 * 1024, maxQueuedBatches: 1_000 },
};

/** Graph exploration, the live graph stream, analyst edits and workspace statistics, over the store ports. */
export function createGraphService(deps: GraphDeps, settings: GraphSettings = DEFAULT_SETTINGS) {
  const { stores } = deps;
  // Change batches read for the stream's subscribers, shared by all of them.
  const resolutions = new BatchResolutions();
  return {
    settings,
    cypher: (input: { query: string; params: Record<string, unknown> }) => runAnalystCypher(stores, settings.cypher, input),
    explore: (scope: Scope, query: GraphQuery) => exploreGraph(stores.graph, scope, query),
    stats: (scope: Scope) => graphStats(stores.graph, scope),
    listEntities: (scope: Scope, query: EntityListQuery) => listEntities(stores, scope, query),
    listRelationships: (scope: Scope, query: RelationshipListQuery) => listRelationships(stores, scope, query),
    entityDetail: (scope: Scope, id: string) => entityDetail(stores, scope, id),
    stream: (scope: Scope, query: GraphStreamQuery) => graphFeed(deps, scope, query, settings.stream, resolutions),
    updateEntity: async (scope: Scope, id: string, patch: EntityPatch) => {
      const entity = await updateEntity(deps, scope, id, patch);
      return entityDetail(stores, scope, entity.id);
    },
    createEntity: async (scope: Scope, input: EntityInput) => {
      const entity = await createEntity(deps, scope, input);
      return entityDetail(stores, scope, entity.id);
    },
    deleteEntity: (scope: Scope, id: string) => deleteEntity(deps, scope, id),
    renameEntity: async (scope: Scope, id: string, input: RenameInput) => {
      const outcome = await renameEntity(deps, scope, id, input);
      return { ...outcome, entity: await entityDetail(stores, scope, outcome.entity.id) };
    },
    mergeEntities: async (scope: Scope, input: MergeInput) => {
      const outcome = await mergeEntities(deps, scope, input);
      return { ...outcome, entity: await entityDetail(stores, scope, outcome.entity.id) };
    },
    workspaceStats: (scope: Scope) => workspaceStats(stores, scope),
    searchNodes: (scope: Scope, query: { text?: string; type?: string; limit: number }) => searchNodes(stores.graph, scope, query),
    searchLabels: (scope: Scope, query: { text?: string; limit: number }) => searchLabels(stores.graph, scope, query),
    popularLabels: (scope: Scope, limit: number) => popularLabels(stores.graph, scope, limit),
    entityExists: (scope: Scope, name: string) => entityExists(stores.graph, scope, name),
    neighborhood: (scope: Scope, id: string, depth: number, maxNodes: number) => neighborhood(stores.graph, scope, id, depth, maxNodes),
    node: (scope: Scope, id: string) => graphNode(stores.graph, scope, id),
    degrees: (scope: Scope, names: string[]) => degreesOf(stores.graph, scope, names),
  };
}

export type GraphService = ReturnType<typeof createGraphService>;
