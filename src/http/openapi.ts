import { z } from 'zod';
import type { RegisteredRoute } from './api';

const problemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    instance: z.string(),
  })
  .passthrough()
  .meta({ id: 'Problem', description: 'RFC 7807 problem details' });

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const out = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
  delete out.$schema;
  return out;
}

/** `/documents/:id` -> `/documents/{id}` */
function openApiPath(prefix: string, path: string): string {
  return (prefix + path).replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}') || '/';
}

function parameters(schema: z.ZodType | undefined, where: 'query' | 'path'): unknown[] {
  if (!schema) return [];
  const js = jsonSchema(schema, 'input') as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(js.properties ?? {}).map(([name, s]) => ({
    name,
    in: where,
    required: where === 'path' || (js.required ?? []).includes(name),
    schema: s,
    ...(typeof (s as { description?: unknown }).description === 'string'
      ? { description: (s as { description: string }).description }
      : {}),
  }));
}

/** The OpenAPI 3.1 document, generated from the zod schemas the routes validate with. */
export function buildOpenApi(routes: RegisteredRoute[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { prefix, spec } of routes) {
    const path = openApiPath(prefix, spec.path);
    const responses: Record<string, unknown> = {};
    for (const [status, r] of Object.entries(spec.responses)) {
      const contentType = r.contentType ?? 'application/json';
      responses[status] = {
        description: r.description,
        ...(r.schema ? { content: { [contentType]: { schema: jsonSchema(r.schema, 'output') } } } : {}),
      };
    }
    responses.default = {
      description: 'Problem details',
      content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
    };
    const requestBody = spec.body
      ? { required: true, content: { 'application/json': { schema: jsonSchema(spec.body, 'input') } } }
      : spec.multipart
        ? { required: true, content: { 'multipart/form-data': { schema: jsonSchema(spec.multipart, 'input') } } }
        : undefined;
    paths[path] ??= {};
    paths[path][spec.method] = {
      summary: spec.summary,
      ...(spec.description ? { description: spec.description } : {}),
      tags: [spec.tag],
      operationId: `${spec.method}${path.replace(/[^A-Za-z0-9]+/g, '_')}`,
      parameters: [...parameters(spec.params, 'path'), ...parameters(spec.query, 'query')],
      ...(requestBody ? { requestBody } : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'kgrag — knowledge-graph retrieval service',
      version,
      description: 'Ingest documents into a knowledge graph and vector index; answer questions by graph RAG.',
    },
    servers: [{ url: '/' }],
    paths,
    components: {
      schemas: { Problem: jsonSchema(problemSchema, 'output') },
      parameters: {},
    },
  };
}
