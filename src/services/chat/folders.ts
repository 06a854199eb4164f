import { NotFoundError } from '../../domain/errors';
import { newId } from '../../domain/ids';
import type { Scope } from '../../domain/types';
import type { ConversationStore, FolderSummary } from '../../store/ports';

/** A folder as the API shows it: EdgeQuake's FolderInfo (folders do not nest, so parent_id is always null). */
export interface FolderView {
  id: string;
  name: string;
  parent_id: null;
  conversation_count: number;
  created_at: string;
  updated_at: string;
}

/** Folders that organise a workspace's conversations. */
export interface FolderService {
  list(scope: Scope): Promise<{ folders: FolderView[] }>;
  create(scope: Scope, input: { name: string }): Promise<FolderView>;
  /** 404 when absent from the workspace. */
  rename(scope: Scope, id: string, input: { name: string }): Promise<FolderView>;
  /** The conversations filed in it stay, in no folder; 404 when absent. */
  delete(scope: Scope, id: string): Promise<void>;
}

export function folderMissing(id: string) {
  return new NotFoundError(`folder '${id}' does not exist in this workspace`);
}

/** The folder a conversation is being filed in must exist; null (no folder) always does. */
export async function checkFolder(store: ConversationStore, scope: Scope, id: string | null | undefined): Promise<void> {
  if (id && !(await store.getFolder(scope, id))) throw folderMissing(id);
}

function present(f: FolderSummary): FolderView {
  return {
    id: f.id,
    name: f.name,
    parent_id: null,
    conversation_count: f.conversation_count,
    created_at: f.created_at,
    updated_at: f.updated_at,
  };
}

export function createFolderService(store: ConversationStore): FolderService {
  async function find(scope: Scope, id: string): Promise<FolderSummary> {
    const folder = await store.getFolder(scope, id);
    if (!folder) throw folderMissing(id);
    return folder;
  }

  return {
    async list(scope) {
      return { folders: (await store.listFolders(scope)).map(present) };
    },

    async create(scope, input) {
      const now = new Date().toISOString();
      const folder = { id: newId(), name: input.name, created_at: now, updated_at: now };
      await store.createFolder(scope, folder);
      return present({ ...folder, conversation_count: 0 });
    },

    async rename(scope, id, input) {
      await find(scope, id);
      await store.updateFolder(scope, id, { name: input.name, updated_at: new Date().toISOString() });
      return present(await find(scope, id));
    },

    async delete(scope, id) {
      if (!(await store.deleteFolder(scope, id))) throw folderMissing(id);
    },
  };
}
