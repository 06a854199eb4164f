import { z } from 'zod';
import { type RegisteredRoute, accessOf } from './api';

const problemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    instance: z.string(),
  })
  .passthrough()
  .describe('RFC 7807 problem details');

/** zod writes named schemas under a local `$defs`; in an OpenAPI document they live in components. */
function pointRefsAtComponents(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(pointRefsAtComponents);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    out[key] = key === '$ref' && typeof v === 'string' ? v.replace('#/$defs/', '#/components/schemas/') : pointRefsAtComponents(v);
  }
  return out;
}

/** Named schemas (zod `.meta({ id })`) collected while converting, published under components.schemas. */
type Components = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: 'input' | 'output', components?: Components): Record<string, unknown> {
  const out = pointRefsAtComponents(z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' })) as Record<
    string,
    unknown
  >;
  delete out.$schema;
  const defs = out.$defs as Components | undefined;
  delete out.$defs;
  if (defs) {
    if (!components) throw new Error('named schemas need a components map');
    // Input and output forms of one named schema can differ (defaults); the output form names the type.
    for (const [id, def] of Object.entries(defs)) if (!(id in components) || io === 'output') components[id] = def;
  }
  return out;
}

/** `/documents/:id` -> `/documents/{id}`; a rest parameter `/models/*id` -> `/models/{id}` */
function openApiPath(prefix: string, path: string): string {
  return (prefix + path).replace(/[:*]([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}') || '/';
}

function parameters(schema: z.ZodType | undefined, where: 'query' | 'path', components: Components): unknown[] {
  if (!schema) return [];
  const js = jsonSchema(schema, 'input', components) as { properties?: Record<string, unknown>; required?: string[] };
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

/** docs/api.md §5.1: the tenant and workspace a scoped operation acts in. */
const SCOPE_HEADERS = [
  {
    name: 'X-Workspace-ID',
    in: 'header',
    required: false,
    schema: { type: 'string', format: 'uuid' },
    description: "Workspace to act in; default: the credential's bound workspace, else the tenant's default workspace",
  },
  {
    name: 'X-Tenant-ID',
    in: 'header',
    required: false,
    schema: { type: 'string', format: 'uuid' },
    description: "Tenant to act for; must be the credential's own (the master key may name any)",
  },
];

function problemResponse(description: string) {
  return { description, content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } };
}

/** The OpenAPI 3.1 document, generated from the zod schemas the routes validate with. */
export function buildOpenApi(routes: RegisteredRoute[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const components: Components = { Problem: jsonSchema(problemSchema, 'output') };
  for (const { prefix, spec } of routes) {
    const path = openApiPath(prefix, spec.path);
    const responses: Record<string, unknown> = {};
    for (const [status, r] of Object.entries(spec.responses)) {
      const contentType = r.contentType ?? 'application/json';
      responses[status] = {
        description: r.description,
        ...(r.schema ? { content: { [contentType]: { schema: jsonSchema(r.schema, 'output', components) } } } : {}),
      };
    }
    const { access, workspace } = accessOf(spec);
    const open = access === 'public' || access === 'credentials';
    if (!open) {
      responses['401'] ??= problemResponse('Missing, invalid, expired or revoked credentials');
      responses['403'] ??= problemResponse(access === 'operator' ? 'Needs the master key or an operator' : `Needs the ${access} role`);
      if (workspace) responses['404'] ??= problemResponse('Unknown workspace (or one of another tenant)');
    }
    responses.default = {
      description: 'Problem details',
      content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
    };
    const requestBody = spec.body
      ? { required: spec.bodyOptional !== true, content: { 'application/json': { schema: jsonSchema(spec.body, 'input', components) } } }
      : spec.multipart
        ? { required: true, content: { 'multipart/form-data': { schema: jsonSchema(spec.multipart, 'input', components) } } }
        : undefined;
    paths[path] ??= {};
    paths[path][spec.method] = {
      summary: spec.summary,
      ...(spec.description ? { description: spec.description } : {}),
      tags: [spec.tag],
      operationId: `${spec.method}${path.replace(/[^A-Za-z0-9]+/g, '_')}`,
      parameters: [
        ...parameters(spec.params, 'path', components),
        ...parameters(spec.query, 'query', components),
        ...(workspace ? SCOPE_HEADERS : []),
      ],
      ...(requestBody ? { requestBody } : {}),
      ...(open ? { security: [] } : {}),
      ...(workspace ? { 'x-workspace-scoped': true } : {}),
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
    // docs/api.md §5: either presentation of an API key, or a JWT access token as a bearer token.
    security: [{ ApiKeyHeader: [] }, { Bearer: [] }],
    paths,
    components: {
      schemas: components,
      parameters: {},
      securitySchemes: {
        ApiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'An API key, or the master key' },
        Bearer: { type: 'http', scheme: 'bearer', description: 'An access token from /api/v1/auth/login, or an API key' },
      },
    },
  };
}
