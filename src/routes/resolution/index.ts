import type { Api } from '../../http/api';
import type { Runtime } from '../../services/runtime';
import type { EntityRecord } from '../../domain/types';
import {
  applyBody,
  applySchema,
  dryRunBody,
  dryRunSchema,
  rejectBody,
  rejectSchema,
  settingsPatch,
  settingsSchema,
  splitBody,
  splitParams,
  splitSchema,
} from './schemas';

const tag = 'graph';

const brief = (e: EntityRecord | null) => (e ? { id: e.id, name: e.name, entity_type: e.entity_type, description: e.description } : null);

/** Entity resolution: workspace settings, a dry run for reviewers, applying reviewed merges, splitting an alias off. */
export function resolutionRoutes(api: Api, rt: Runtime): void {
  api.route(
    {
      method: 'get',
      path: '/graph/resolution/settings',
      tag,
      summary: "The workspace's entity resolution settings",
      responses: { 200: { description: 'Settings', schema: settingsSchema } },
    },
    async (ctx) => {
      ctx.body = await rt.resolution.settings(ctx.state.scope);
    },
  );

  api.route(
    {
      method: 'put',
      path: '/graph/resolution/settings',
      tag,
      summary: 'Change entity resolution settings of the workspace (turn it off or on, thresholds)',
      description: 'Fields left out keep their values. A review_score above merge_score is 422.',
      body: settingsPatch,
      responses: {
        200: { description: 'The settings now', schema: settingsSchema },
        422: { description: 'A field breaking its rule' },
      },
    },
    async (ctx, { body }) => {
      ctx.body = await rt.resolution.saveSettings(ctx.state.scope, body);
    },
  );

  api.route(
    {
      method: 'post',
      path: '/graph/resolution/dry-run',
      tag,
      summary: 'Propose entity merges with their scores, changing nothing',
      description:
        'Each entity is matched through the name index and the entity vector index against the rest of the graph; its ' +
        'best candidate of a compatible type is proposed when it scores at least review_score. `merge`: at or above ' +
        'merge_score; in the band below, `confirmed`/`rejected` by the LLM with `confirm`, else `unconfirmed`.',
      body: dryRunBody,
      responses: { 200: { description: 'Proposed merges', schema: dryRunSchema }, 422: { description: 'A field breaking its rule' } },
    },
    async (ctx, { body }) => {
      ctx.body = await rt.resolution.dryRun(ctx.state.scope, { entityIds: body.entity_ids, limit: body.limit, confirm: body.confirm });
    },
  );

  api.route(
    {
      method: 'post',
      path: '/graph/resolution/apply',
      tag,
      summary: 'Apply a reviewed list of merges (source into target)',
      description:
        'In order; each merge follows the ones before it (an id already merged stands for its survivor). Pairs that ' +
        'are already one entity, or name a missing entity, are listed under `skipped`. Every merge is recorded in the ' +
        "survivor's merge_history and can be undone with POST /graph/entities/{id}/split.",
      body: applyBody,
      responses: {
        200: { description: 'Applied and skipped merges', schema: applySchema },
        422: { description: 'A field breaking its rule' },
      },
    },
    async (ctx, { body }) => {
      ctx.body = await rt.resolution.apply(ctx.state.scope, body.merges);
    },
  );

  api.route(
    {
      method: 'post',
      path: '/graph/resolution/reject',
      tag,
      summary: 'Keep reviewed pairs apart: resolution never proposes or makes these merges again',
      description:
        'Each pair is remembered for the workspace (as a split alias is), so dry runs stop proposing it and ingestion ' +
        'never merges it. Pairs that are already one entity, or name a missing entity, are listed under `skipped`.',
      body: rejectBody,
      responses: {
        200: { description: 'Rejected and skipped pairs', schema: rejectSchema },
        422: { description: 'A field breaking its rule' },
      },
    },
    async (ctx, { body }) => {
      ctx.body = await rt.resolution.reject(ctx.state.scope, body.pairs);
    },
  );

  api.route(
    {
      method: 'post',
      path: '/graph/entities/:id/split',
      tag,
      summary: 'Split a merged alias off an entity again',
      description:
        "The alias leaves the entity's merge_history, is kept apart from it from then on, and gets back its own entity " +
        'with the relationships and provenance of the chunks that name it. 404 for an unknown entity, 422 when the ' +
        'alias was not merged into it.',
      params: splitParams,
      body: splitBody,
      responses: {
        200: { description: 'The entity and the entity split off', schema: splitSchema },
        404: { description: 'Unknown entity' },
        422: { description: 'Not an alias of this entity' },
      },
    },
    async (ctx, { params, body }) => {
      const outcome = await rt.resolution.split(ctx.state.scope, params.id, body.alias);
      ctx.body = { entity: brief(outcome.entity), split_off: brief(outcome.split_off) };
    },
  );
}
