import { z } from 'zod';

const nullableInt = z.number().int().nullable();

export const documentParamsSchema = z.object({ document_id: z.string().min(1).max(256) });
export const chunkParamsSchema = z.object({ chunk_id: z.string().min(1).max(512) });
export const entityParamsSchema = z.object({ entity_id: z.string().min(1).max(512) });
export const entityNameParamsSchema = z.object({ entity_name: z.string().min(1).max(512) });

export const documentLineageSchema = z.object({
  document_id: z.string(),
  document_title: z.string(),
  status: z.string(),
  chunks: z.array(
    z.object({
      chunk_id: z.string(),
      chunk_index: z.number().int(),
      content_preview: z.string(),
      tokens: z.number().int(),
      start_line: z.number().int(),
      end_line: z.number().int(),
      entity_count: z.number().int(),
      relationship_count: z.number().int(),
    }),
  ),
  entities: z.array(z.object({ entity_id: z.string(), entity_name: z.string(), entity_type: z.string(), chunk_ids: z.array(z.string()) })),
  metadata: z.record(z.string(), z.unknown()).describe('The document metadata, as GET /documents/{id}/metadata'),
  lineage: z.object({ chunks: z.array(z.unknown()), entities: z.array(z.unknown()) }).describe('chunks and entities again, under one key'),
});

/** The lineage as a graph: document -HAS_CHUNK-> chunk -MENTIONS-> entity (and relationships between entities). */
const lineageGraphFields = {
  nodes: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      node_type: z.enum(['document', 'chunk', 'entity']),
      properties: z.record(z.string(), z.unknown()),
    }),
  ),
  edges: z.array(z.object({ source: z.string(), target: z.string(), relationship: z.string() })),
  root_id: z.string(),
};

export const extractionMetadataSchema = z
  .object({
    llm_model: z.string().nullable(),
    created_at: z.string().nullable(),
    entity_count: z.number().int(),
    relationship_count: z.number().int(),
    extraction_passes: z.number().int(),
    gleaning_passes: z.number().int(),
    health: z
      .object({
        records_parsed: z.number().int(),
        records_kept: z.number().int(),
        dropped: z.record(z.string(), z.number().int()).describe('by reason: malformed, self_loop, not_in_text, placeholder, example'),
        finish_reason: z.enum(['stop', 'length', 'timeout']),
        completion_marker: z.boolean().describe('every pass ended with the completion marker'),
        looped: z.boolean(),
        passes: z.number().int(),
        empty_outputs: z.number().int(),
        prompt_version: z.number().int(),
        prompt_override: z.string().nullable().optional(),
      })
      .nullable()
      .describe('the extraction health of the chunk (docs/api.md §4.1); null for extractions recorded before it'),
  })
  .nullable();

export const chunkDetailSchema = z.object({
  chunk_id: z.string(),
  document_id: z.string(),
  document_name: z.string(),
  content: z.string(),
  index: z.number().int(),
  char_range: z.object({ start: z.number().int(), end: z.number().int() }),
  start_line: z.number().int(),
  end_line: z.number().int(),
  token_count: z.number().int(),
  entities: z.array(z.object({ id: z.string(), name: z.string(), entity_type: z.string(), description: z.string() })),
  relationships: z.array(
    z.object({
      id: z.string(),
      source: z.string(),
      target: z.string(),
      source_name: z.string(),
      target_name: z.string(),
      relation_type: z.string(),
      keywords: z.array(z.string()),
      description: z.string(),
    }),
  ),
  extraction_metadata: extractionMetadataSchema,
  id: z.string().describe('= chunk_id'),
  chunk_index: z.number().int().describe('= index'),
  embedding_model: z.string().nullable(),
});

export const chunkLineageSchema = z.object({
  chunk_id: z.string(),
  document_id: z.string(),
  document_name: z.string(),
  document_type: z.string(),
  chunk_index: z.number().int(),
  content_preview: z.string(),
  tokens: z.number().int(),
  start_line: nullableInt,
  end_line: nullableInt,
  start_offset: z.number().int(),
  end_offset: z.number().int(),
  llm_model: z.string().nullable(),
  embedding_model: z.string().nullable(),
  embedding_dimension: z.number().int(),
  entity_ids: z.array(z.string()),
  entity_names: z.array(z.string()),
  entity_count: z.number().int(),
  relationship_count: z.number().int(),
  file_path: z.string(),
  created_at: z.string(),
  index: z.number().int().describe('= chunk_index'),
  token_count: z.number().int().describe('= tokens'),
});

export const provenanceSchema = z.object({
  entity_id: z.string(),
  entity_name: z.string(),
  entity_type: z.string(),
  description: z.string(),
  sources: z.array(
    z.object({
      document_id: z.string(),
      document_name: z.string(),
      chunks: z.array(
        z.object({
          chunk_id: z.string(),
          start_line: nullableInt,
          end_line: nullableInt,
          source_text: z.string().nullable().describe('the sentences of the chunk naming the entity, else the chunk'),
        }),
      ),
      first_extracted_at: z.string().nullable(),
    }),
  ),
  total_extraction_count: z.number().int().describe('chunks the entity was extracted from'),
  related_entities: z.array(
    z.object({
      entity_id: z.string(),
      entity_name: z.string(),
      entity_type: z.string(),
      relationship_id: z.string(),
      relationship_type: z.string(),
      shared_documents: z.number().int(),
    }),
  ),
});

const mergeRecordSchema = z.object({ date: z.string(), merged_from: z.array(z.string()), reason: z.string() });

export const entityLineageSchema = z.object({
  entity_name: z.string(),
  entity_type: z.string(),
  source_count: z.number().int(),
  source_documents: z.array(
    z.object({
      document_id: z.string(),
      document_title: z.string(),
      chunk_ids: z.array(z.string()),
      line_ranges: z.array(z.object({ chunk_id: z.string(), start_line: z.number().int(), end_line: z.number().int() })),
    }),
  ),
  description_versions: z.array(
    z.object({
      description: z.string(),
      name: z.string(),
      entity_type: z.string(),
      chunk_id: z.string(),
      document_id: z.string(),
      extracted_at: z.string().nullable(),
    }),
  ),
  entity: z.object({ id: z.string(), name: z.string(), type: z.string(), description: z.string() }),
  sources: z.array(
    z.object({
      document_id: z.string(),
      document_title: z.string(),
      chunk_id: z.string(),
      chunk_index: z.number().int(),
      extraction_date: z.string(),
      confidence: z.number().describe('1 when the chunk itself named the entity, 0.5 when it came through a merge'),
    }),
  ),
  merge_history: z.array(mergeRecordSchema),
  ...lineageGraphFields,
});

export const documentGraphLineageSchema = z.object({
  document_id: z.string(),
  chunk_count: z.number().int(),
  extraction_stats: z.object({
    total_entities: z.number().int(),
    unique_entities: z.number().int(),
    total_relationships: z.number().int(),
    unique_relationships: z.number().int(),
    processing_time_ms: nullableInt,
  }),
  entities: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      entity_type: z.string(),
      source_chunks: z.array(z.string()),
      is_shared: z.boolean(),
    }),
  ),
  relationships: z.array(
    z.object({
      id: z.string(),
      source: z.string(),
      target: z.string(),
      relation_type: z.string(),
      keywords: z.array(z.string()),
      source_chunks: z.array(z.string()),
    }),
  ),
  document: z.object({ id: z.string(), title: z.string(), status: z.string() }),
  chunks: z.array(
    z.object({
      id: z.string(),
      index: z.number().int(),
      entities_extracted: z.number().int(),
      relationships_extracted: z.number().int(),
    }),
  ),
  entities_contributed: z.array(z.object({ id: z.string(), type: z.string(), is_primary_source: z.boolean() })),
  relationships_contributed: z.array(z.object({ id: z.string(), source: z.string(), target: z.string(), type: z.string() })),
  ...lineageGraphFields,
});
