import { z } from 'zod';
import type { Api } from '../../http/api';
import type { Runtime } from '../../services/runtime';

const setupStatusSchema = z.object({
  needs_setup: z.literal(false).describe('Always false: the service sets itself up at start-up'),
  auth_enabled: z.boolean(),
  storage_mode: z.enum(['memory', 'neo4j']),
});

/**
 * Paths of EdgeQuake's that name features this service has no use for (docs/api.md §10): a first-run setup wizard
 * (start-up creates the first tenant and administrator) and saved provider connections (providers come from the
 * model catalog). They answer as EdgeQuake does with the feature off: nothing to set up, no saved connection.
 */
export function setupRoutes(api: Api, rt: Runtime): void {
  api.route(
    {
      method: 'get',
      path: '/setup/status',
      tag: 'settings',
      access: 'viewer',
      workspace: false,
      summary: 'Whether a first-run setup is needed: never, the service sets itself up at start-up',
      responses: { 200: { description: 'Setup status', schema: setupStatusSchema } },
    },
    (ctx) => {
      ctx.body = { needs_setup: false, auth_enabled: rt.config.auth.enabled, storage_mode: rt.config.storage.mode };
    },
  );
  api.route(
    {
      method: 'get',
      path: '/connections',
      tag: 'settings',
      access: 'admin',
      workspace: false,
      summary: 'Saved provider connections: none, providers come from the model catalog (GET /providers)',
      responses: { 200: { description: 'An empty list', schema: z.array(z.object({ id: z.string() })).max(0) } },
    },
    (ctx) => {
      ctx.body = [];
    },
  );
}
