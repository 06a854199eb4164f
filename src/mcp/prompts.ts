import { ErrorCode, type GetPromptResult, McpError, type Prompt } from '@modelcontextprotocol/sdk/types.js';
import { queryTextSchema } from '../routes/query/schema';
import { modeSchema } from '../routes/shared/answer-schema';
import { parseOrThrow } from '../http/validate';
import type { Runtime } from '../services/runtime';
import { type Extra, callerOf, inWorkspace, problemOf } from './context';
import { sourceLines } from './tools/query';
import { workspaceArgument } from './tool';
import { z } from 'zod';

export const ANSWER_PROMPT = 'answer-with-citations';

export const prompts: Prompt[] = [
  {
    name: ANSWER_PROMPT,
    title: 'Answer from the knowledge graph with citations',
    description: 'Retrieves the context of a question from the knowledge graph and asks for an answer that cites its sources as [n].',
    arguments: [
      { name: 'question', description: 'the question to answer', required: true },
      { name: 'mode', description: 'retrieval mode: naive, local, global, hybrid (default), mix', required: false },
      { name: 'workspace', description: 'workspace id or slug', required: false },
    ],
  },
];

/** Prompt arguments arrive as strings. */
const answerArguments = z.object({ question: queryTextSchema, mode: modeSchema.optional(), workspace: workspaceArgument });

export async function getPrompt(rt: Runtime, extra: Extra, name: string, raw: Record<string, string> = {}): Promise<GetPromptResult> {
  if (name !== ANSWER_PROMPT)
    throw new McpError(ErrorCode.InvalidParams, `unknown prompt '${name.slice(0, 100)}'; the prompts are: ${ANSWER_PROMPT}`);
  try {
    await callerOf(extra).rateLimit?.('query');
    const args = parseOrThrow(answerArguments, raw);
    return await inWorkspace(rt, extra, { workspace: args.workspace, role: 'viewer' }, async ({ scope }) => {
      const input = { query: args.question, mode: args.mode, context_only: true };
      const result = await rt.costs.asQuery(callerOf(extra).requestId, () => rt.query.answer(scope, input, extra.signal));
      const sources = sourceLines(result.sources);
      const text = [
        'Answer the question below from the knowledge-graph context that follows, and only from it.',
        'Cite every statement with the reference numbers of its sources, as [1] or [2][3]. If the context does not hold the answer, say so.',
        '',
        '--- Context ---',
        result.context ?? '',
        '',
        '--- Sources ---',
        sources.length ? sources.join('\n') : '(none found)',
        '',
        `Question: ${args.question}`,
      ].join('\n');
      return {
        description: `Answer "${args.question.slice(0, 80)}" from ${result.sources.length} sources`,
        messages: [{ role: 'user', content: { type: 'text', text } }],
      };
    });
  } catch (err) {
    const problem = problemOf(rt, err, `/mcp/prompts/${ANSWER_PROMPT}`, callerOf(extra).requestId);
    throw new McpError(problem.status === 500 ? ErrorCode.InternalError : ErrorCode.InvalidParams, String(problem.detail), problem);
  }
}
