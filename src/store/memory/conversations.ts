import type { ConversationRecord, FolderRecord, MessageRecord, Page, Scope } from '../../domain/types';
import type { ConversationFilter, ConversationOrder, ConversationStore, FolderSummary } from '../ports';
import { applyPatch, compareIds, copyConversation, copyMessage, pageOf } from './records';
import { WorkspaceStates } from './workspaces';

interface StoredMessage {
  message: MessageRecord;
  /** Insertion order, for messages created at the same instant. */
  seq: number;
}

interface ConversationState {
  conversations: Map<string, ConversationRecord>;
  /** conversation id -> its messages, kept ordered by created_at then insertion. */
  messages: Map<string, StoredMessage[]>;
  /** message id -> conversation id. */
  conversationOf: Map<string, string>;
  folders: Map<string, FolderRecord>;
}

function time(iso: string): number {
  return Date.parse(iso);
}

/** By the field asked for (most recently updated first by default), ties by id. */
function ordered({ sort = 'updated_at', order = 'desc' }: ConversationOrder) {
  const sign = order === 'asc' ? 1 : -1;
  return (a: ConversationRecord, b: ConversationRecord): number =>
    sign * (sort === 'title' ? compareIds(a.title, b.title) : time(a[sort]) - time(b[sort])) || compareIds(a.id, b.id);
}

function kept(c: ConversationRecord, filter: ConversationFilter): boolean {
  return (
    (filter.folderId === undefined || c.folder_id === filter.folderId) &&
    (filter.unfiled === undefined || (c.folder_id === null) === filter.unfiled) &&
    (filter.pinned === undefined || c.is_pinned === filter.pinned) &&
    (filter.archived === undefined || c.is_archived === filter.archived) &&
    (filter.search === undefined || c.title.toLowerCase().includes(filter.search.toLowerCase())) &&
    (filter.modes === undefined || filter.modes.includes(c.mode))
  );
}

function byName(a: FolderRecord, b: FolderRecord): number {
  return compareIds(a.name, b.name) || compareIds(a.id, b.id);
}

function summary(state: ConversationState, folder: FolderRecord): FolderSummary {
  let count = 0;
  for (const c of state.conversations.values()) if (c.folder_id === folder.id) count++;
  return { ...folder, conversation_count: count };
}

export class MemoryConversationStore implements ConversationStore {
  private readonly workspaces = new WorkspaceStates<ConversationState>(() => ({
    conversations: new Map(),
    messages: new Map(),
    conversationOf: new Map(),
    folders: new Map(),
  }));
  private seq = 0;

  async create(scope: Scope, conversation: ConversationRecord): Promise<void> {
    const state = this.workspaces.obtain(scope);
    state.conversations.set(conversation.id, copyConversation(conversation));
    if (!state.messages.has(conversation.id)) state.messages.set(conversation.id, []);
  }

  async get(scope: Scope, id: string): Promise<ConversationRecord | null> {
    const conversation = this.workspaces.find(scope)?.conversations.get(id);
    return conversation ? copyConversation(conversation) : null;
  }

  async list(
    scope: Scope,
    query: { limit: number; offset: number } & ConversationFilter & ConversationOrder,
  ): Promise<Page<ConversationRecord>> {
    const all = [...(this.workspaces.find(scope)?.conversations.values() ?? [])].filter((c) => kept(c, query)).sort(ordered(query));
    return pageOf(all, query.limit, query.offset, copyConversation);
  }

  async update(scope: Scope, id: string, patch: Partial<ConversationRecord>): Promise<void> {
    const state = this.workspaces.find(scope);
    const current = state?.conversations.get(id);
    if (state && current) state.conversations.set(id, applyPatch(current, patch, copyConversation));
  }

  /** Deletes the conversation and its messages. */
  async delete(scope: Scope, id: string): Promise<boolean> {
    const state = this.workspaces.find(scope);
    if (!state || !state.conversations.delete(id)) return false;
    for (const { message } of state.messages.get(id) ?? []) state.conversationOf.delete(message.id);
    state.messages.delete(id);
    return true;
  }

  /** The conversation must exist in the same workspace. message_count is the caller's to maintain. */
  async addMessage(scope: Scope, message: MessageRecord): Promise<void> {
    const state = this.workspaces.find(scope);
    const messages = state?.messages.get(message.conversation_id);
    if (!state || !messages) throw new Error(`conversation ${message.conversation_id} does not exist`);
    const previous = state.conversationOf.get(message.id);
    if (previous !== undefined) this.removeMessage(state, previous, message.id);
    const stored: StoredMessage = { message: copyMessage(message), seq: this.seq++ };
    // Usually appended; a message dated earlier than the last one goes to its place.
    const at = time(stored.message.created_at);
    let index = messages.length;
    while (index > 0 && time(messages[index - 1].message.created_at) > at) index--;
    messages.splice(index, 0, stored);
    state.conversationOf.set(message.id, message.conversation_id);
  }

  /** A message keeps its conversation and its place: conversation_id and created_at are not patched. */
  async updateMessage(scope: Scope, id: string, patch: Partial<MessageRecord>): Promise<void> {
    const state = this.workspaces.find(scope);
    const conversationId = state?.conversationOf.get(id);
    const messages = conversationId === undefined ? undefined : state?.messages.get(conversationId);
    const stored = messages?.find((m) => m.message.id === id);
    if (!stored) return;
    stored.message = applyPatch(stored.message, patch, copyMessage, ['conversation_id', 'created_at']);
  }

  /** Oldest first. */
  async listMessages(scope: Scope, conversationId: string, query: { limit: number; offset: number }): Promise<Page<MessageRecord>> {
    const messages = this.workspaces.find(scope)?.messages.get(conversationId) ?? [];
    return pageOf(messages, query.limit, query.offset, (m) => copyMessage(m.message));
  }

  async createFolder(scope: Scope, folder: FolderRecord): Promise<void> {
    this.workspaces.obtain(scope).folders.set(folder.id, { ...folder });
  }

  async getFolder(scope: Scope, id: string): Promise<FolderSummary | null> {
    const state = this.workspaces.find(scope);
    const folder = state?.folders.get(id);
    return state && folder ? summary(state, folder) : null;
  }

  async listFolders(scope: Scope): Promise<FolderSummary[]> {
    const state = this.workspaces.find(scope);
    if (!state) return [];
    return [...state.folders.values()].sort(byName).map((f) => summary(state, f));
  }

  async updateFolder(scope: Scope, id: string, patch: Partial<FolderRecord>): Promise<void> {
    const folders = this.workspaces.find(scope)?.folders;
    const current = folders?.get(id);
    if (folders && current)
      folders.set(
        id,
        applyPatch(current, patch, (f) => ({ ...f })),
      );
  }

  async deleteFolder(scope: Scope, id: string): Promise<boolean> {
    const state = this.workspaces.find(scope);
    if (!state || !state.folders.delete(id)) return false;
    for (const c of state.conversations.values()) if (c.folder_id === id) c.folder_id = null;
    return true;
  }

  dropWorkspace(scope: Scope): void {
    this.workspaces.drop(scope);
  }

  clear(): void {
    this.workspaces.clear();
  }

  private removeMessage(state: ConversationState, conversationId: string, id: string): void {
    const messages = state.messages.get(conversationId);
    const index = messages?.findIndex((m) => m.message.id === id) ?? -1;
    if (messages && index >= 0) messages.splice(index, 1);
    state.conversationOf.delete(id);
  }
}
