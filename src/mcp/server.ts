import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Runtime } from '../services/runtime';
import { getPrompt, prompts } from './prompts';
import { listResources, readResource, resourceTemplates } from './resources';
import type { McpTool } from './tool';
import { documentTools } from './tools/documents';
import { graphTools } from './tools/graph';
import { queryTools } from './tools/query';

export const TOOLS: McpTool[] = [...queryTools, ...graphTools, ...documentTools];
const BY_NAME = new Map(TOOLS.map((t) => [t.name, t]));

const INSTRUCTIONS =
  'kgrag answers questions from a knowledge graph built from the documents of a workspace. Use `query` to answer ' +
  'with sources (cite them as [n]), `search_entities`, `get_entity`, `neighbourhood` and `shortest_path` to explore ' +
  'the graph, and `ingest_text` / `ingest_file` to add documents. Every tool takes an optional `workspace` (id or slug).';

/**
 * One MCP server (a session's): the tools, resources and prompts, each a thin layer over the services the REST
 * routes call, acting as the caller that the transport hands in with every request.
 */
export function createMcpServer(rt: Runtime): Server {
  const server = new Server(
    { name: 'kgrag', title: 'kgrag knowledge graph', version: rt.config.version },
    { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOLS.map((t) => t.listing) }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const tool = BY_NAME.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `unknown tool '${request.params.name.slice(0, 100)}'`);
    return tool.call(rt, extra, request.params.arguments);
  });
  server.setRequestHandler(ListResourcesRequestSchema, (request, extra) => listResources(rt, extra, request.params?.cursor));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates }));
  server.setRequestHandler(ReadResourceRequestSchema, (request, extra) => readResource(rt, extra, request.params.uri));
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts }));
  server.setRequestHandler(GetPromptRequestSchema, (request, extra) => getPrompt(rt, extra, request.params.name, request.params.arguments));
  return server;
}
