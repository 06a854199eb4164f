import { z } from 'zod';
import { plainText } from '../../http/validate';

/** Saved views of the graph explorer (docs/api.md, Saved views). */

export const viewParamsSchema = z.object({ id: z.string().min(1) });

const viewSettingsSchema = z.object({
  start_node: z.string().max(500, 'must be at most 500 characters').describe('entity id or name; empty: the most connected'),
  depth: z.number().int().min(0).max(5),
  max_nodes: z.number().int().min(1).max(10_000),
  hidden_types: z
    .array(z.string().max(100, 'must be at most 100 characters'))
    .max(200, 'must list at most 200 types')
    .describe('entity types hidden'),
  layout: z.enum(['force', 'circular', 'radial']),
  camera: z
    .object({ x: z.number(), y: z.number(), ratio: z.number().positive(), angle: z.number() })
    .nullable()
    .optional()
    .describe("sigma's camera state; null or absent: the whole view framed"),
});

export const saveViewSchema = z.object({
  name: plainText(z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters')),
  view: viewSettingsSchema,
});

export const savedViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  view: viewSettingsSchema,
  created_at: z.string(),
  updated_at: z.string(),
});

export const savedViewListSchema = z.object({ views: z.array(savedViewSchema).describe("the caller's views, by name") });
