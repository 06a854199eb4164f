import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Role } from '../domain/accounts';
import type { RateCategory } from '../http/context';
import { parseOrThrow } from '../http/validate';
import type { Runtime } from '../services/runtime';
import type { RequestScope } from '../services/tenancy';
import { type Caller, type Extra, callerOf, inWorkspace, problemOf } from './context';

/** Every tool takes the workspace it acts in, by id or slug, over the one of the request's credential or headers. */
export const workspaceArgument = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(200)
  .optional()
  .describe("workspace id or slug (e.g. 'default'); default: X-Workspace-ID, else the API key's workspace, else the tenant's default");

/** What a tool hands back: the result as structured content, and the same result as text for the model to read. */
export interface ToolOutput {
  structured: Record<string, unknown>;
  text: string;
}

export interface ToolCall {
  rt: Runtime;
  resolved: RequestScope;
  caller: Caller;
  extra: Extra;
}

export interface ToolSpec<S extends z.ZodObject> {
  name: string;
  title: string;
  description: string;
  /** The arguments: built from the REST route's zod schema, so both validate and document alike. */
  args: S;
  /** The role the call needs (as the REST route it mirrors). */
  role: Role;
  /** The rate limit a call counts against, as the REST route's (docs/api.md §8.2); none when the route has none. */
  rate?: RateCategory;
  /** Reads only (MCP annotation readOnlyHint); writes are neither destructive nor idempotent. */
  readOnly: boolean;
  run(call: ToolCall, args: z.output<S>): Promise<ToolOutput>;
}

export interface McpTool {
  name: string;
  listing: Tool;
  call(rt: Runtime, extra: Extra, args: unknown): Promise<CallToolResult>;
}

/** The JSON Schema (draft 2020-12) of a tool's arguments, generated from their zod schema. */
export function argumentsSchema(schema: z.ZodType): Tool['inputSchema'] {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
  delete json.$schema;
  return json as Tool['inputSchema'];
}

/** A tool: its listing (with the JSON Schema of its arguments) and a call that validates, authorises and answers. */
export function defineTool<S extends z.ZodObject>(spec: ToolSpec<S>): McpTool {
  const args = spec.args.extend({ workspace: workspaceArgument });
  return {
    name: spec.name,
    listing: {
      name: spec.name,
      title: spec.title,
      description: spec.description,
      inputSchema: argumentsSchema(args),
      annotations: {
        title: spec.title,
        readOnlyHint: spec.readOnly,
        destructiveHint: false,
        idempotentHint: spec.readOnly,
        openWorldHint: false,
      },
    },
    async call(rt, extra, raw) {
      try {
        if (spec.rate) await callerOf(extra).rateLimit?.(spec.rate);
        const parsed = parseOrThrow(args, raw ?? {}) as z.output<S> & { workspace?: string };
        const output = await inWorkspace(rt, extra, { workspace: parsed.workspace, role: spec.role }, (resolved, caller) =>
          spec.run({ rt, resolved, caller, extra }, parsed),
        );
        return { content: [{ type: 'text', text: output.text }], structuredContent: output.structured };
      } catch (err) {
        // A cancelled call gets no answer (the SDK drops it): nothing to report.
        if (extra.signal.aborted) return { isError: true, content: [{ type: 'text', text: 'cancelled' }] };
        return toolError(rt, extra, err, `/mcp/tools/${spec.name}`);
      }
    },
  };
}

/** A refused or failed call: an MCP tool error carrying the problem details the REST API would answer with. */
export function toolError(rt: Runtime, extra: Extra, err: unknown, instance: string): CallToolResult {
  const requestId = (extra.authInfo?.extra?.caller as Caller | undefined)?.requestId ?? String(extra.requestId);
  const problem = problemOf(rt, err, instance, requestId);
  return {
    isError: true,
    content: [
      { type: 'text', text: `${String(problem.status)} ${String(problem.title)}: ${String(problem.detail)}\n${JSON.stringify(problem)}` },
    ],
    structuredContent: problem,
  };
}

/** JSON text of a result, for clients that read only the text content. */
export function asJson(structured: object): ToolOutput {
  return { structured: structured as Record<string, unknown>, text: JSON.stringify(structured, null, 2) };
}
