import { z } from 'zod';
import type { Api } from '../../http/api';
import type { Runtime } from '../../services/runtime';

const availableProvidersSchema = z.object({
  providers: z.array(
    z.object({
      name: z.string(),
      display_name: z.string(),
      is_available: z.boolean().describe('Enabled, and answered its last check (at most 30 s old)'),
      is_current: z.boolean().describe('The default LLM or embedding provider'),
      models: z.array(z.string()),
    }),
  ),
});

const providerStatusSchema = z.object({
  current_provider: z.string(),
  current_model: z.string(),
  embedding_provider: z.string(),
  embedding_model: z.string(),
  status: z.enum(['healthy', 'unreachable']),
});

/**
 * EdgeQuake's provider settings paths (docs/api.md §10), read-only here: the providers come from the model catalog
 * and the environment (§1.3), so there is nothing to switch at run time.
 */
export function providerSettingsRoutes(api: Api, rt: Runtime): void {
  const read = { method: 'get', tag: 'settings', access: 'viewer', workspace: false } as const;
  api.route(
    {
      ...read,
      path: '/settings/providers',
      summary: 'The providers of the catalog: whether each answers, whether it is in use, its models',
      responses: { 200: { description: 'Providers', schema: availableProvidersSchema } },
    },
    async (ctx) => {
      ctx.body = await rt.models.availableProviders();
    },
  );
  api.route(
    {
      ...read,
      path: '/settings/provider/status',
      summary: 'The LLM and embedding providers in use, and whether they answer',
      responses: { 200: { description: 'Provider status', schema: providerStatusSchema } },
    },
    async (ctx) => {
      ctx.body = await rt.models.providerStatus();
    },
  );
}
