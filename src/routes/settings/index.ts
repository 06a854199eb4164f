import type { Api } from '../../http/api';
import type { Runtime } from '../../services/runtime';
import { settingsPatchSchema, settingsSchema } from '../../services/settings';

/** Runtime settings (docs/api.md §4.11): operators only; applied at once, kept across restarts. */
export function settingsRoutes(api: Api, rt: Runtime): void {
  api.route(
    {
      method: 'get',
      path: '/settings',
      tag: 'settings',
      access: 'operator',
      workspace: false,
      summary: 'The runtime settings in force',
      responses: { 200: { description: 'Settings', schema: settingsSchema } },
    },
    (ctx) => {
      ctx.body = rt.settings.current();
    },
  );
  api.route(
    {
      method: 'patch',
      path: '/settings',
      tag: 'settings',
      access: 'operator',
      workspace: false,
      summary: 'Change runtime settings; they apply at once (chunking: to documents ingested from now on)',
      body: settingsPatchSchema,
      responses: {
        200: { description: 'The settings now in force', schema: settingsSchema },
        400: { description: 'Not a JSON body' },
        422: { description: 'A field breaks a rule, or chunk_overlap_tokens is not smaller than chunk_tokens' },
      },
    },
    async (ctx, { body }) => {
      ctx.body = await rt.settings.update(body);
    },
  );
}
