import type { SavedViewRecord } from '../../domain/accounts';
import { InvalidInputError, NotFoundError } from '../../domain/errors';
import { newId } from '../../domain/ids';
import type { Scope } from '../../domain/types';
import type { RecordCollection } from '../../store/ports';

/** What a saved view restores in the graph explorer. */
export interface ViewSettings {
  start_node: string;
  depth: number;
  max_nodes: number;
  hidden_types: string[];
  layout: 'force' | 'circular' | 'radial';
  camera?: { x: number; y: number; ratio: number; angle: number } | null;
}

export interface SavedView {
  id: string;
  name: string;
  view: ViewSettings;
  created_at: string;
  updated_at: string;
}

/** Views a user keeps per workspace. */
export interface SavedViewService {
  /** The caller's views in the workspace, by name. */
  list(scope: Scope, owner: string): Promise<{ views: SavedView[] }>;
  /** Saves under `name`, replacing the caller's view of that name; `created` tells which happened. */
  save(scope: Scope, owner: string, input: { name: string; view: ViewSettings }): Promise<{ view: SavedView; created: boolean }>;
  /** 404 unless the caller has a view with this id in the workspace. */
  delete(scope: Scope, owner: string, id: string): Promise<void>;
}

/** How many views one user keeps in one workspace. */
export const MAX_SAVED_VIEWS = 100;

function present(record: SavedViewRecord): SavedView {
  return {
    id: record.id,
    name: record.name,
    view: JSON.parse(record.view_json) as ViewSettings,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

export function createSavedViewService(views: RecordCollection<SavedViewRecord>): SavedViewService {
  return {
    async list(scope, owner) {
      const page = await views.list({ workspace_id: scope.workspaceId, owner_id: owner }, { limit: MAX_SAVED_VIEWS, offset: 0 });
      return { views: page.items.map(present).sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id)) };
    },

    async save(scope, owner, input) {
      const now = new Date().toISOString();
      const mine = { workspace_id: scope.workspaceId, owner_id: owner };
      const view_json = JSON.stringify(input.view);
      const existing = await views.findOne({ ...mine, name: input.name });
      if (existing) {
        const updated = await views.update(existing.id, { view_json, updated_at: now });
        if (updated) return { view: present(updated), created: false };
      }
      if ((await views.count(mine)) >= MAX_SAVED_VIEWS)
        throw InvalidInputError.field('name', `at most ${MAX_SAVED_VIEWS} views are kept per user and workspace: delete one first`);
      const record: SavedViewRecord = { id: newId(), ...mine, name: input.name, view_json, created_at: now, updated_at: now };
      await views.insert(record);
      return { view: present(record), created: true };
    },

    async delete(scope, owner, id) {
      const record = await views.get(id);
      if (!record || record.workspace_id !== scope.workspaceId || record.owner_id !== owner || !(await views.delete(id)))
        throw new NotFoundError(`saved view '${id}' does not exist`);
    },
  };
}
