import type { Api } from '../../http/api';
import type { Runtime } from '../../runtime';
import {
  chunkDetailSchema,
  chunkLineageSchema,
  chunkParamsSchema,
  documentGraphLineageSchema,
  documentLineageSchema,
  documentParamsSchema,
  entityLineageSchema,
  entityNameParamsSchema,
  entityParamsSchema,
  provenanceSchema,
} from './schema';

const tag = 'lineage';
const notFound = { description: 'Unknown id in this workspace: problem details with `error` NotFound and `message`' };

/** Lineage from document to chunk to entity and back (spec 4.10). */
export function lineageRoutes(api: Api, rt: Runtime): void {
  api.route(
    {
      method: 'get',
      path: '/documents/:document_id/lineage',
      tag,
      summary: "A document's chunks and the entities extracted from each",
      params: documentParamsSchema,
      responses: { 200: { description: 'Document lineage', schema: documentLineageSchema }, 404: notFound },
    },
    async (ctx, { params }) => {
      ctx.body = await rt.lineage.documentLineage(ctx.state.scope, params.document_id);
    },
  );

  api.route(
    {
      method: 'get',
      path: '/chunks/:chunk_id',
      tag,
      summary: 'A chunk with its text, position, entities, relationships and extraction metadata',
      params: chunkParamsSchema,
      responses: { 200: { description: 'Chunk detail', schema: chunkDetailSchema }, 404: notFound },
    },
    async (ctx, { params }) => {
      ctx.body = await rt.lineage.chunkDetail(ctx.state.scope, params.chunk_id);
    },
  );

  api.route(
    {
      method: 'get',
      path: '/chunks/:chunk_id/lineage',
      tag,
      summary: 'Where a chunk came from and which models processed it',
      params: chunkParamsSchema,
      responses: { 200: { description: 'Chunk lineage', schema: chunkLineageSchema }, 404: notFound },
    },
    async (ctx, { params }) => {
      ctx.body = await rt.lineage.chunkLineage(ctx.state.scope, params.chunk_id);
    },
  );

  api.route(
    {
      method: 'get',
      path: '/entities/:entity_id/provenance',
      tag,
      summary: 'The passages an entity was extracted from, by document, and its related entities',
      params: entityParamsSchema,
      responses: { 200: { description: 'Entity provenance', schema: provenanceSchema }, 404: notFound },
    },
    async (ctx, { params }) => {
      ctx.body = await rt.lineage.entityProvenance(ctx.state.scope, params.entity_id);
    },
  );

  api.route(
    {
      method: 'get',
      path: '/lineage/entities/:entity_name',
      tag,
      summary: 'Entity lineage: sources, description versions and merge history (both documented shapes in one)',
      params: entityNameParamsSchema,
      responses: { 200: { description: 'Entity lineage', schema: entityLineageSchema }, 404: notFound },
    },
    async (ctx, { params }) => {
      ctx.body = await rt.lineage.entityLineage(ctx.state.scope, params.entity_name);
    },
  );

  api.route(
    {
      method: 'get',
      path: '/lineage/documents/:document_id',
      tag,
      summary: 'Document graph lineage: what a document contributed (both documented shapes in one)',
      params: documentParamsSchema,
      responses: { 200: { description: 'Document graph lineage', schema: documentGraphLineageSchema }, 404: notFound },
    },
    async (ctx, { params }) => {
      ctx.body = await rt.lineage.documentGraphLineage(ctx.state.scope, params.document_id);
    },
  );
}
