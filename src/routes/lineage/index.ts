import type { z } from 'zod';
import type { Scope } from '../../domain/types';
import type { Api, ResponseSpec } from '../../http/api';
import type { Runtime } from '../../services/runtime';
import { presentMetadata } from '../shared/document-metadata';
import {
  presentChunkDetail,
  presentChunkLineage,
  presentDocumentGraphLineage,
  presentDocumentLineage,
  presentEntityLineage,
} from './present';
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

/** Lineage from document to chunk to entity and back (docs/api.md §4.10). */
export function lineageRoutes(api: Api, rt: Runtime): void {
  // Every lineage read is a GET of one id that is 404 when the id is unknown in the workspace.
  function read<P extends z.ZodType>(
    path: string,
    summary: string,
    params: P,
    ok: ResponseSpec,
    load: (scope: Scope, params: z.output<P>) => Promise<unknown>,
  ): void {
    const responses = { 200: ok, 404: notFound };
    api.route({ method: 'get', path, tag, summary, params, responses }, async (ctx, input) => {
      ctx.body = await load(ctx.state.scope, input.params);
    });
  }

  read(
    '/documents/:document_id/lineage',
    "A document's chunks and the entities extracted from each",
    documentParamsSchema,
    { description: 'Document lineage', schema: documentLineageSchema },
    async (scope, p) => {
      const lineage = await rt.lineage.documentLineage(scope, p.document_id);
      return presentDocumentLineage(lineage, presentMetadata(await rt.documents.get(scope, p.document_id)));
    },
  );

  read(
    '/chunks/:chunk_id',
    'A chunk with its text, position, entities, relationships and extraction metadata',
    chunkParamsSchema,
    { description: 'Chunk detail', schema: chunkDetailSchema },
    async (scope, p) => {
      const [detail, lineage] = await Promise.all([rt.lineage.chunkDetail(scope, p.chunk_id), rt.lineage.chunkLineage(scope, p.chunk_id)]);
      return presentChunkDetail(detail, lineage.embedding_model);
    },
  );

  read(
    '/chunks/:chunk_id/lineage',
    'Where a chunk came from and which models processed it',
    chunkParamsSchema,
    { description: 'Chunk lineage', schema: chunkLineageSchema },
    async (scope, p) => presentChunkLineage(await rt.lineage.chunkLineage(scope, p.chunk_id)),
  );

  read(
    '/entities/:entity_id/provenance',
    'The passages an entity was extracted from, by document, and its related entities',
    entityParamsSchema,
    { description: 'Entity provenance', schema: provenanceSchema },
    (scope, p) => rt.lineage.entityProvenance(scope, p.entity_id),
  );

  read(
    '/lineage/entities/:entity_name',
    'Entity lineage: sources, description versions and merge history (both documented shapes in one)',
    entityNameParamsSchema,
    { description: 'Entity lineage', schema: entityLineageSchema },
    async (scope, p) => presentEntityLineage(await rt.lineage.entityLineage(scope, p.entity_name)),
  );

  read(
    '/lineage/documents/:document_id',
    'Document graph lineage: what a document contributed (both documented shapes in one)',
    documentParamsSchema,
    { description: 'Document graph lineage', schema: documentGraphLineageSchema },
    async (scope, p) => presentDocumentGraphLineage(await rt.lineage.documentGraphLineage(scope, p.document_id)),
  );
}
