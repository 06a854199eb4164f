import { z } from 'zod';
import type { Api } from '../../http/api';
import type { Runtime } from '../../services/runtime';

const tracingSchema = z.object({
  export_active: z.boolean().describe('Both keys are set'),
  base_url: z.string(),
  api: z.enum(['auto', 'ingestion', 'otlp']).describe('SERVICE_TRACING_API as configured'),
  api_resolved: z.enum(['ingestion', 'otlp']).nullable().describe('The export path in use; null without export'),
  project_id: z.string().nullable(),
});

/** The resolved trace export configuration (docs/api.md §1.4); never the secret key. */
export function tracingSettingsRoutes(api: Api, rt: Runtime): void {
  api.route(
    {
      method: 'get',
      path: '/settings/tracing',
      tag: 'settings',
      access: 'admin',
      workspace: false,
      summary: 'Trace export: whether it is on, where to, and through which API',
      responses: { 200: { description: 'Trace export settings', schema: tracingSchema } },
    },
    async (ctx) => {
      ctx.body = { ...rt.tracing };
    },
  );
}
