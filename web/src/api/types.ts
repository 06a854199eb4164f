/**
 * The API's types, taken from the generated OpenAPI types (schema.d.ts, `npm run web:types` at the root) by path
 * and method, so the console never re-declares a shape the server publishes.
 */
import type { components, paths } from './schema';

export type ApiPath = keyof paths;
export type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';

type JsonOf<R> = R extends { content: { 'application/json': infer T } } ? T : never;
type Responses<P extends ApiPath, M extends Method> = paths[P][M] extends { responses: infer R } ? R : never;

/** The JSON body of a 200 (or 201, 202) answer. */
export type Ok<P extends ApiPath, M extends Method = 'get'> =
  Responses<P, M> extends { 200: infer S }
    ? JsonOf<S>
    : Responses<P, M> extends { 201: infer S }
      ? JsonOf<S>
      : Responses<P, M> extends { 202: infer S }
        ? JsonOf<S>
        : never;

/** The JSON request body. */
export type BodyOf<P extends ApiPath, M extends Method> = paths[P][M] extends { requestBody?: { content: { 'application/json': infer B } } }
  ? B
  : never;

/** The query parameters. */
export type QueryOf<P extends ApiPath, M extends Method = 'get'> = paths[P][M] extends { parameters: { query?: infer Q } }
  ? NonNullable<Q>
  : never;

export type Problem = components['schemas']['Problem'];
export type Health = Ok<'/health'>;
export type GraphView = Ok<'/api/v1/graph'>;
export type GraphNode = components['schemas']['GraphNode'];
export type GraphEdge = components['schemas']['GraphEdge'];
export type GraphStats = Ok<'/api/v1/graph/stats'>;
export type EntityItem = components['schemas']['EntityItem'];
export type EntityDetail = components['schemas']['EntityDetail'];
export type Provenance = Ok<'/api/v1/entities/{entity_id}/provenance'>;
export type ChunkDetail = Ok<'/api/v1/chunks/{chunk_id}'>;
export type DocumentLineage = Ok<'/api/v1/documents/{document_id}/lineage'>;
export type QueryBody = BodyOf<'/api/v1/query', 'post'>;
export type QueryResult = Ok<'/api/v1/query', 'post'>;
export type QueryMode = NonNullable<QueryBody['mode']>;
export type Source = QueryResult['sources'][number];
export type ChatBody = BodyOf<'/api/v1/chat/completions', 'post'>;
export type ConversationList = Ok<'/api/v1/conversations'>;
export type Conversation = ConversationList['conversations'][number];
export type ConversationDetail = Ok<'/api/v1/conversations/{id}'>;
export type DocumentList = Ok<'/api/v1/documents'>;
export type DocumentItem = DocumentList['documents'][number];
export type DocumentDetail = Ok<'/api/v1/documents/{id}'>;
export type DocumentMetadata = Ok<'/api/v1/documents/{id}/metadata'>;
export type DeletionImpact = Ok<'/api/v1/documents/{id}/deletion-impact'>;
export type FailedChunks = Ok<'/api/v1/documents/{id}/failed-chunks'>;
export type BatchResult = Ok<'/api/v1/documents/upload/batch', 'post'>;
export type TaskList = Ok<'/api/v1/tasks'>;
export type TaskItem = TaskList['tasks'][number];
export type TaskDetail = Ok<'/api/v1/tasks/{id}'>;
export type PipelineStatus = Ok<'/api/v1/pipeline/status'>;
export type QueueMetrics = Ok<'/api/v1/pipeline/queue-metrics'>;
export type WorkspaceStats = Ok<'/api/v1/workspaces/{id}/stats'>;

/** The modes in the order the playground offers them. */
export const QUERY_MODES: QueryMode[] = ['hybrid', 'local', 'global', 'naive', 'mix', 'bypass'];
export type ShortestPaths = Ok<'/api/v1/graph/analytics/shortest-paths'>;
export type SavedView = Ok<'/api/v1/graph/views'>['views'][number];
export type SavedViewSettings = SavedView['view'];
