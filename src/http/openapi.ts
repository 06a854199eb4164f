import { z } from 'zod';
import { type RegisteredRoute, type ResponseSpec, type RouteSpec, accessOf } from './api';
import { type CompatFlavour, compatFlavourOf } from './compat-paths';

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

/**
 * Checks the validators make beyond what zod publishes. A trimmed string with a minimum length (`z.string().trim().min(1)`) refuses text of spaces alone: the published
 * schema says so with a pattern that asks for one character that is not white space.
 */
function publishChecks(ctx: { zodSchema: unknown; jsonSchema: Record<string, unknown> }, jsonInput: boolean): void {
  // zod checks an email address with its pattern alone; other validators read `format: email` differently.
  if (ctx.jsonSchema.format === 'email' && ctx.jsonSchema.pattern !== undefined) delete ctx.jsonSchema.format;
  if (jsonInput && ctx.jsonSchema.type === 'object' && ctx.jsonSchema.additionalProperties !== false) {
    // The JSON body parser refuses a member named __proto__ at any depth (prototype poisoning).
    ctx.jsonSchema.propertyNames = { not: { const: '__proto__' } };
  }
  const def = (ctx.zodSchema as { _zod?: { def?: { type?: string; checks?: Array<{ _zod: { def: { check?: string } } }> } } })._zod?.def;
  if (def?.type !== 'string' || !def.checks?.some((c) => c._zod.def.check === 'overwrite')) return;
  if (typeof ctx.jsonSchema.minLength !== 'number' || ctx.jsonSchema.minLength < 1) return;
  const nonBlank = { pattern: '\\S' };
  if (ctx.jsonSchema.pattern === undefined) Object.assign(ctx.jsonSchema, nonBlank);
  else ctx.jsonSchema.allOf = [...((ctx.jsonSchema.allOf as unknown[]) ?? []), nonBlank];
}

/** Named schemas (zod `.meta({ id })`) collected while converting, published under components.schemas. */
type Components = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: 'input' | 'output', components?: Components, json = false): Record<string, unknown> {
  const out = pointRefsAtComponents(
    z.toJSONSchema(schema, {
      io,
      unrepresentable: 'any',
      target: 'draft-2020-12',
      override: (ctx) => publishChecks(ctx, io === 'input' && json),
    }),
  ) as Record<string, unknown>;
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

/**
 * A media type object. An event stream's schema describes one event (Open API 3.1): its `data` field is JSON text
 * of the route's schema (`contentMediaType` + `contentSchema`), or the sentinel frame a stream ends with, or plain
 * text where the route has a raw-text format.
 */
function media(
  contentType: string | undefined,
  schema: z.ZodType,
  frames: Pick<ResponseSpec, 'sentinel' | 'rawText'>,
  components: Components,
) {
  const payload = jsonSchema(schema, 'output', components);
  if (!contentType?.startsWith('text/event-stream')) return { schema: payload };
  const json = { contentMediaType: 'application/json', contentSchema: payload };
  const { sentinel, rawText } = frames;
  const raw = { description: rawText, contentMediaType: 'text/plain', not: { pattern: '^\\{"type":' } };
  const data = sentinel
    ? { type: 'string', if: { const: sentinel }, then: true, else: json }
    : rawText
      ? { type: 'string', anyOf: [json, raw] }
      : { type: 'string', ...json };
  return {
    schema: {
      type: 'object',
      required: ['data'],
      properties: { event: { type: 'string' }, id: { type: 'string' }, retry: { type: 'integer' }, data },
    },
  };
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

/** Error bodies of the compatibility APIs (docs/api.md §4.12): the local runtime's and OpenAI's shapes. */
const COMPAT_ERRORS: Record<CompatFlavour, [id: string, schema: z.ZodType]> = {
  ollama: ['OllamaError', z.object({ error: z.string() }).describe('Error of the local runtime API')],
  openai: [
    'OpenAiError',
    z
      .object({
        error: z.object({ message: z.string(), type: z.string(), param: z.string().nullable(), code: z.string().nullable() }),
      })
      .describe('Error of the OpenAI-compatible API'),
  ],
};

function errorResponse(description: string, flavour: CompatFlavour | null) {
  if (!flavour) {
    return { description, content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } };
  }
  return { description, content: { 'application/json': { schema: { $ref: `#/components/schemas/${COMPAT_ERRORS[flavour][0]}` } } } };
}

/**
 * The refusals every route can answer, documented unless the route documents them itself: malformed requests,
 * credentials and roles, bodies over the limit or of the wrong type, validation, rate limits and outages. The
 * compatibility APIs answer 400 where the rest of the API says 415 or 422.
 */
function standardErrors(
  spec: RouteSpec<z.ZodType, z.ZodType, z.ZodType>,
  flavour: CompatFlavour | null,
): Record<string, ReturnType<typeof errorResponse>> {
  const { access, workspace } = accessOf(spec);
  const open = access === 'public' || access === 'credentials';
  const hasBody = spec.body !== undefined || spec.multipart !== undefined;
  const out: Record<string, ReturnType<typeof errorResponse>> = {};
  out['400'] = errorResponse(
    flavour ? 'Malformed or invalid request' : 'Malformed request: a body that is not JSON, a header of the wrong form',
    flavour,
  );
  if (!open) {
    out['401'] = errorResponse('Missing, invalid, expired or revoked credentials', flavour);
    out['403'] = errorResponse(access === 'operator' ? 'Needs the master key or an operator' : `Needs the ${access} role`, flavour);
  }
  if (workspace || spec.params)
    out['404'] = errorResponse(workspace ? 'Not found, or an unknown workspace (or one of another tenant)' : 'Not found', flavour);
  if (hasBody) out['413'] = errorResponse('Request body over its limit (the limit is quoted)', flavour);
  if (hasBody && !flavour) out['415'] = errorResponse('Request body of an unsupported media type', flavour);
  if (!flavour && (hasBody || spec.params || spec.query || workspace)) out['422'] = errorResponse('Invalid input, field by field', flavour);
  out['429'] = errorResponse('Rate limited; see Retry-After', flavour);
  out['503'] = errorResponse('A dependency is unavailable; retry shortly', flavour);
  return out;
}

/** The OpenAPI 3.1 document, generated from the zod schemas the routes validate with. */
export function buildOpenApi(routes: RegisteredRoute[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const components: Components = { Problem: jsonSchema(problemSchema, 'output') };
  for (const [id, schema] of Object.values(COMPAT_ERRORS)) components[id] = jsonSchema(schema, 'output');
  for (const { prefix, spec } of routes) {
    const path = openApiPath(prefix, spec.path);
    const responses: Record<string, unknown> = {};
    for (const [status, r] of Object.entries(spec.responses)) {
      const content: Record<string, unknown> = {};
      if (r.schema) content[r.contentType ?? 'application/json'] = media(r.contentType, r.schema, r, components);
      for (const alt of r.alternatives ?? []) content[alt.contentType] = media(alt.contentType, alt.schema, alt, components);
      responses[status] = { description: r.description, ...(Object.keys(content).length ? { content } : {}) };
    }
    const { access, workspace } = accessOf(spec);
    const open = access === 'public' || access === 'credentials';
    const flavour = compatFlavourOf(path);
    for (const [status, r] of Object.entries(standardErrors(spec, flavour))) responses[status] ??= r;
    responses.default = errorResponse(flavour ? 'Error' : 'Problem details', flavour);
    const requestBody = spec.body
      ? {
          required: spec.bodyOptional !== true,
          content: { 'application/json': { schema: jsonSchema(spec.body, 'input', components, true) } },
        }
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
