import { z } from 'zod';
import type { QueryResult, QuerySource } from '../../retrieval';
import { presentQueryResult } from '../../routes/shared/answer-present';
import { queryBodySchema } from '../../routes/query/schema';
import { documentFilterSchema } from '../../routes/shared/answer-schema';
import { type McpTool, defineTool } from '../tool';

const body = queryBodySchema.shape;

export const queryArguments = z.object({
  query: body.query,
  mode: body.mode,
  top_k: body.max_chunks.describe('entities, relationships and chunks retrieval keeps, each (default 20)'),
  filters: documentFilterSchema,
  context_only: body.context_only.describe('return the retrieved context and its sources without an answer'),
});

/** One line per source: what a client cites as [n]. */
export function sourceLines(sources: QuerySource[]): string[] {
  return sources.map((s) =>
    s.source_type === 'chunk'
      ? `[${s.reference_id}] ${s.document_title} (${s.file_path}), lines ${s.start_line}-${s.end_line}, document ${s.document_id}`
      : `[${s.reference_id}] entity ${s.id} (${s.entity_type})`,
  );
}

function queryText(result: QueryResult): string {
  const head = result.context !== undefined ? result.context : result.answer;
  const sources = sourceLines(result.sources);
  return sources.length ? `${head}\n\nSources:\n${sources.join('\n')}` : head;
}

/** `query`: the REST /query (docs/api.md §4.3), within the workspace's budget, cancelled with the call. */
export const queryTools: McpTool[] = [
  defineTool({
    name: 'query',
    title: 'Ask the knowledge graph',
    description:
      'Answer a question from the knowledge graph and the documents, with sources (document titles and line ranges) to cite as [n]. ' +
      'Modes: naive (chunk vectors), local (entities), global (relationships), hybrid (default), mix (hybrid with chunks), ' +
      'bypass (the model alone). context_only returns the retrieved context for you to answer from.',
    args: queryArguments,
    role: 'viewer',
    rate: 'query',
    readOnly: true,
    async run({ rt, resolved, caller, extra }, args) {
      await rt.costs.assertWithinBudget(resolved.scope);
      const k = args.top_k;
      const input = {
        query: args.query,
        mode: args.mode,
        context_only: args.context_only,
        document_filter: args.filters,
        ...(k !== undefined ? { max_chunks: k, max_entities: k, max_relationships: k } : {}),
      };
      const result = await rt.costs.asQuery(caller.requestId, () => rt.query.answer(resolved.scope, input, extra.signal));
      return { structured: presentQueryResult(result), text: queryText(result) };
    },
  }),
];
