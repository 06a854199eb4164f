import { ErrorCode, McpError, type ReadResourceResult, type Resource, type ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import type { Runtime } from '../services/runtime';
import { type Extra, callerOf, inWorkspace, problemOf } from './context';
import { entityWithProvenance } from './tools/graph';

/** Documents and entities by URI: kgrag://workspace/<workspace>/document/<id> and …/entity/<name>. */
const URI = /^kgrag:\/\/workspace\/([^/]+)\/(document|entity)\/(.+)$/;
const PAGE = 100;
/** MCP's code for a resource that does not exist. */
const RESOURCE_NOT_FOUND = -32002;

export const resourceTemplates: ResourceTemplate[] = [
  {
    uriTemplate: 'kgrag://workspace/{workspace}/document/{id}',
    name: 'document',
    title: 'Document',
    description: 'The text of a document (workspace by id or slug)',
    mimeType: 'text/plain',
  },
  {
    uriTemplate: 'kgrag://workspace/{workspace}/entity/{name}',
    name: 'entity',
    title: 'Entity',
    description: 'An entity with its description, relationships and provenance (workspace by id or slug)',
    mimeType: 'application/json',
  },
];

export const documentUri = (workspace: string, id: string) => `kgrag://workspace/${workspace}/document/${encodeURIComponent(id)}`;
export const entityUri = (workspace: string, name: string) => `kgrag://workspace/${workspace}/entity/${encodeURIComponent(name)}`;

/** A refusal as an MCP error whose data is the problem details the REST API would answer with. */
function refusal(rt: Runtime, extra: Extra, err: unknown, instance: string): McpError {
  const problem = problemOf(rt, err, instance, callerOf(extra).requestId);
  const code = problem.status === 404 ? RESOURCE_NOT_FOUND : problem.status === 500 ? ErrorCode.InternalError : ErrorCode.InvalidParams;
  return new McpError(code, String(problem.detail), problem);
}

/**
 * The resources of the caller's workspace: its documents, newest first, then its entities, a page at a time; the
 * cursor is `documents:<offset>` or `entities:<offset>`.
 */
export async function listResources(rt: Runtime, extra: Extra, cursor?: string): Promise<{ resources: Resource[]; nextCursor?: string }> {
  const [kind, at] = (cursor ?? 'documents:0').split(':');
  const offset = Number(at);
  if ((kind !== 'documents' && kind !== 'entities') || !Number.isSafeInteger(offset) || offset < 0) {
    throw new McpError(ErrorCode.InvalidParams, `unknown cursor '${(cursor ?? '').slice(0, 64)}'`);
  }
  try {
    return await inWorkspace(rt, extra, { role: 'viewer' }, async ({ scope }) => {
      const ws = scope.workspaceId;
      if (kind === 'documents') {
        const page = await rt.documents.list(scope, { limit: PAGE, offset });
        const next = offset + page.items.length < page.total ? `documents:${offset + PAGE}` : 'entities:0';
        const resources = page.items.map((d) => ({
          uri: documentUri(ws, d.id),
          name: d.title,
          title: d.title,
          description: `document ${d.id} (${d.status}), ${d.file_path}`,
          mimeType: 'text/plain',
          size: d.file_size,
        }));
        return { resources, nextCursor: next };
      }
      const page = await rt.graph.listEntities(scope, { limit: PAGE, offset });
      const resources = page.entities.map((e) => ({
        uri: entityUri(ws, e.id),
        name: e.name,
        title: e.name,
        description: `${e.entity_type}: ${e.description.slice(0, 200)}`,
        mimeType: 'application/json',
      }));
      return offset + PAGE < page.total ? { resources, nextCursor: `entities:${offset + PAGE}` } : { resources };
    });
  } catch (err) {
    throw refusal(rt, extra, err, '/mcp/resources');
  }
}

export async function readResource(rt: Runtime, extra: Extra, uri: string): Promise<ReadResourceResult> {
  const match = URI.exec(uri);
  if (!match) throw new McpError(RESOURCE_NOT_FOUND, `not a kgrag resource: '${uri.slice(0, 200)}'`, { uri });
  const [, workspace, kind, rawId] = match;
  let id: string;
  try {
    id = decodeURIComponent(rawId);
  } catch {
    throw new McpError(ErrorCode.InvalidParams, `the resource name is not valid percent-encoding: '${rawId.slice(0, 200)}'`);
  }
  try {
    return await inWorkspace(rt, extra, { workspace: decodeURIComponent(workspace), role: 'viewer' }, async ({ scope }) => {
      if (kind === 'document') {
        const doc = await rt.documents.get(scope, id);
        return { contents: [{ uri, mimeType: 'text/plain', text: doc.content, _meta: { title: doc.title, document_id: doc.id } }] };
      }
      const entity = await entityWithProvenance(rt, scope, id);
      return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(entity, null, 2) }] };
    });
  } catch (err) {
    throw refusal(rt, extra, err, '/mcp/resources');
  }
}
