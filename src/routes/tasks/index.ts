import { z } from 'zod';
import type { Api } from '../../http/api';
import { pageWindow, pagingAliases, queryInt } from '../../http/validate';
import type { Runtime } from '../../services/runtime';
import { presentTaskAction, presentTaskDetail, presentTaskListItem, taskDetailSchema, taskListItemSchema } from '../shared/task-present';

const TAG = 'tasks';
const idParams = z.object({ id: z.string().min(1).max(256) });
const listQuery = z.object({
  status: z.enum(['pending', 'running', 'completed', 'failed', 'cancelled', 'all']).default('all'),
  limit: queryInt(50, 1, 1000),
  offset: queryInt(0, 0, Number.MAX_SAFE_INTEGER),
  ...pagingAliases,
});
const actionSchema = z.object({
  id: z.string(),
  status: z.enum(['pending', 'cancelled']),
  message: z.string(),
  track_id: z.string().describe('= id'),
});

/** Background document tasks: list, detail, cancel, retry. */
export function taskRoutes(api: Api, rt: Runtime): void {
  api.route(
    {
      method: 'get',
      path: '/tasks',
      tag: TAG,
      summary: 'List the tasks of the workspace, newest first',
      query: listQuery,
      responses: {
        200: { description: 'Tasks', schema: z.object({ tasks: z.array(taskListItemSchema), total: z.number().int() }) },
      },
    },
    async (ctx, { query }) => {
      const status = query.status === 'all' ? undefined : query.status;
      const page = await rt.tasks.list(ctx.state.scope, { status, ...pageWindow(query, 1000) });
      ctx.body = { tasks: page.items.map(presentTaskListItem), total: page.total };
    },
  );

  api.route(
    {
      method: 'get',
      path: '/tasks/:id',
      tag: TAG,
      summary: 'A task with its stages and stats',
      params: idParams,
      responses: { 200: { description: 'Task detail', schema: taskDetailSchema } },
    },
    async (ctx, { params }) => {
      ctx.body = presentTaskDetail(await rt.tasks.get(ctx.state.scope, params.id));
    },
  );

  api.route(
    {
      method: 'post',
      path: '/tasks/:id/cancel',
      tag: TAG,
      summary: 'Cancel a pending or running task',
      description:
        'A pending task is settled at once. A task running in this instance is stopped and the answer comes (within 30 s) after its ' +
        'run has rolled back: the document then reads `failed` with error `cancelled by request` and keeps no graph data ' +
        'from the cancelled run (a chunk retry keeps what earlier runs completed). A task running on another instance ' +
        'sharing the database is answered at once with the task `cancelled`: that instance stops the run at its next ' +
        'lease renewal (within a third of the task lease) and rolls it back; if that instance has died, the rollback ' +
        'happens here once its lease ends, and a retry is refused with 409 until then. 409 when the task has already finished.',
      params: idParams,
      responses: { 200: { description: 'Cancellation requested', schema: actionSchema } },
    },
    async (ctx, { params }) => {
      ctx.body = presentTaskAction(await rt.tasks.cancel(ctx.state.scope, params.id));
    },
  );

  api.route(
    {
      method: 'post',
      path: '/tasks/:id/retry',
      tag: TAG,
      summary: 'Retry a failed or cancelled task as a new task',
      description: 'Creates a new pending task (new id, `retry_of` set) for the same document. 409 for other statuses.',
      params: idParams,
      responses: { 200: { description: 'Queued for retry; `id` is the new task', schema: actionSchema } },
    },
    async (ctx, { params }) => {
      ctx.body = presentTaskAction(await rt.tasks.retry(ctx.state.scope, params.id));
    },
  );
}
