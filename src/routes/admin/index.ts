import { z } from 'zod';
import type { Api } from '../../http/api';
import { ORPHAN_KINDS } from '../../services/integrity';
import type { Runtime } from '../../services/runtime';

const count = z.number().int();
const orphanGroup = z.object({ count, ids: z.array(z.string()) });

const integritySchema = z.object({
  workspace_id: z.string(),
  checked_at: z.string(),
  documents: z.object({ completed: count, processing: count, failed: count }),
  checked: z.object({
    chunks: count,
    entities: count,
    relationships: count,
    vectors: z.object({ chunk: count, entity: count, relationship: count }),
  }),
  orphans: z.object(
    Object.fromEntries(ORPHAN_KINDS.map((kind) => [kind, orphanGroup])) as Record<(typeof ORPHAN_KINDS)[number], typeof orphanGroup>,
  ),
  total: count,
});

/** Administration of a workspace's stored data (docs/api.md §4.12). */
export function adminRoutes(api: Api, rt: Runtime): void {
  api.route(
    {
      method: 'get',
      path: '/admin/integrity',
      tag: 'admin',
      access: 'admin',
      summary: "Check that the workspace's graph and vectors follow from its documents",
      description:
        'Lists orphans of every kind: chunks of no document, vectors of missing records, records citing chunks of failed or ' +
        'deleted documents, relationships with a missing endpoint, records without a vector. `total` is 0 for a consistent ' +
        'workspace; exact while no task runs in it.',
      responses: { 200: { description: 'The integrity report', schema: integritySchema } },
    },
    async (ctx) => {
      ctx.body = await rt.integrity.check(ctx.state.scope);
    },
  );
}
