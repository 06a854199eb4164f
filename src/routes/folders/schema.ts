import { z } from 'zod';
import { plainText } from '../../http/validate';

/** Folders of conversations (EdgeQuake's FolderInfo). */

export const folderParamsSchema = z.object({ id: z.string().min(1) });

const nameSchema = plainText(z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters'));

export const createFolderSchema = z.object({
  name: nameSchema,
  parent_id: z.null({ error: 'folders do not nest: must be null or absent' }).optional(),
});

export const renameFolderSchema = z.object({ name: nameSchema });

export const folderSchema = z.object({
  id: z.string(),
  name: z.string(),
  parent_id: z.null().describe('always null: folders do not nest'),
  conversation_count: z.number().int().describe('conversations filed in it'),
  created_at: z.string(),
  updated_at: z.string(),
});

export const folderListSchema = z.object({ folders: z.array(folderSchema).describe('by name') });
