import { NotFoundError } from '../../domain/errors';
import { newId } from '../../domain/ids';
import type { ConversationRecord, MessageRecord, Scope } from '../../domain/types';
import type { ConversationFilter, ConversationOrder, ConversationStore } from '../../store/ports';
import { checkFolder } from './folders';
import { type ConversationView, type MessageView, presentConversation, presentMessage } from './present';

export interface PageRequest {
  limit: number;
  offset: number;
}

/** Messages are read in pages of this size when a whole conversation is shown. */
const READ_PAGE = 500;
const TITLE_CHARS = 80;

/** What a conversation's update may change; a field left out stays. */
export interface ConversationPatch {
  title?: string;
  /** null: in no folder. */
  folder_id?: string | null;
  is_pinned?: boolean;
  is_archived?: boolean;
}

export interface ConversationService {
  /** Those the filter keeps, in the order asked for (most recently updated first by default). */
  list(
    scope: Scope,
    page: PageRequest & ConversationFilter & ConversationOrder,
  ): Promise<{ conversations: ConversationView[]; total: number } & PageRequest>;
  /** 404 when the folder named is absent. */
  create(scope: Scope, input: { title?: string | null; mode?: string | null; folder_id?: string | null }): Promise<ConversationView>;
  /** 404 when absent from the workspace. */
  get(scope: Scope, id: string): Promise<ConversationView & { messages: MessageView[] }>;
  /** A new title, another folder (null: none), pinned or archived; 404 when the conversation or the folder is absent. */
  update(scope: Scope, id: string, input: ConversationPatch): Promise<ConversationView>;
  /** Files every conversation named in the folder (null: none), or none of them when one is absent (404). */
  move(scope: Scope, ids: string[], folderId: string | null): Promise<{ affected: number }>;
  /** Archives (or unarchives) every conversation named, or none of them when one is absent (404). */
  archive(scope: Scope, ids: string[], archived: boolean): Promise<{ affected: number }>;
  /** Deletes every conversation named with its messages, or none of them when one is absent (404). */
  deleteMany(scope: Scope, ids: string[]): Promise<{ affected: number }>;
  delete(scope: Scope, id: string): Promise<void>;
  messages(scope: Scope, id: string, page: PageRequest): Promise<{ messages: MessageView[]; total: number } & PageRequest>;
}

export function conversationMissing(id: string) {
  return new NotFoundError(`conversation '${id}' does not exist in this workspace`);
}

export async function findConversation(store: ConversationStore, scope: Scope, id: string): Promise<ConversationRecord> {
  const conversation = await store.get(scope, id);
  if (!conversation) throw conversationMissing(id);
  return conversation;
}

export function newConversation(title: string | null | undefined, mode: string, folderId: string | null = null): ConversationRecord {
  const now = new Date().toISOString();
  return {
    id: newId(),
    title: titleOf(title ?? ''),
    mode,
    created_at: now,
    updated_at: now,
    message_count: 0,
    folder_id: folderId,
    is_pinned: false,
    is_archived: false,
  };
}

/** A title from the first line of a message: whitespace collapsed, cut at a word. */
export function titleOf(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= TITLE_CHARS) return flat;
  const cut = flat.slice(0, TITLE_CHARS);
  const space = cut.lastIndexOf(' ');
  return `${space > TITLE_CHARS / 2 ? cut.slice(0, space) : cut}…`;
}

/** Every message of a conversation, oldest first. */
export async function allMessages(store: ConversationStore, scope: Scope, id: string): Promise<MessageRecord[]> {
  const out: MessageRecord[] = [];
  for (let offset = 0; ; offset += READ_PAGE) {
    const page = await store.listMessages(scope, id, { limit: READ_PAGE, offset });
    out.push(...page.items);
    if (page.items.length < READ_PAGE || out.length >= page.total) return out;
  }
}

export function createConversationService(store: ConversationStore): ConversationService {
  /** The ids once each, after checking that every one is in the workspace (404 for the first that is not). */
  async function allFound(scope: Scope, ids: string[]): Promise<string[]> {
    const unique = [...new Set(ids)];
    for (const id of unique) await findConversation(store, scope, id);
    return unique;
  }

  async function updateAll(scope: Scope, ids: string[], patch: Partial<ConversationRecord>): Promise<{ affected: number }> {
    const unique = await allFound(scope, ids);
    const updated_at = new Date().toISOString();
    for (const id of unique) await store.update(scope, id, { ...patch, updated_at });
    return { affected: unique.length };
  }

  return {
    async list(scope, { limit, offset, ...filter }) {
      const found = await store.list(scope, { limit, offset, ...filter });
      return { conversations: found.items.map(presentConversation), total: found.total, limit, offset };
    },

    async create(scope, input) {
      await checkFolder(store, scope, input.folder_id);
      const conversation = newConversation(input.title, input.mode ?? 'hybrid', input.folder_id ?? null);
      await store.create(scope, conversation);
      return presentConversation(conversation);
    },

    async get(scope, id) {
      const conversation = await findConversation(store, scope, id);
      const messages = await allMessages(store, scope, id);
      return { ...presentConversation(conversation), messages: messages.map(presentMessage) };
    },

    async update(scope, id, input) {
      await findConversation(store, scope, id);
      await checkFolder(store, scope, input.folder_id);
      const patch = {
        title: input.title === undefined ? undefined : titleOf(input.title),
        folder_id: input.folder_id,
        is_pinned: input.is_pinned,
        is_archived: input.is_archived,
      };
      await store.update(scope, id, { ...patch, updated_at: new Date().toISOString() });
      return presentConversation(await findConversation(store, scope, id));
    },

    async move(scope, ids, folderId) {
      await checkFolder(store, scope, folderId);
      return updateAll(scope, ids, { folder_id: folderId });
    },

    async archive(scope, ids, archived) {
      return updateAll(scope, ids, { is_archived: archived });
    },

    async deleteMany(scope, ids) {
      const unique = await allFound(scope, ids);
      for (const id of unique) await store.delete(scope, id);
      return { affected: unique.length };
    },

    async delete(scope, id) {
      if (!(await store.delete(scope, id))) throw conversationMissing(id);
    },

    async messages(scope, id, page) {
      await findConversation(store, scope, id);
      const found = await store.listMessages(scope, id, page);
      return { messages: found.items.map(presentMessage), total: found.total, ...page };
    },
  };
}
