import type { ConversationRecord, FolderRecord, MessageRecord, Page, Scope } from '../../domain/types';
import type { ConversationFilter, ConversationOrder, ConversationStore, FolderSummary } from '../ports';
import { type Neo4jClient, scopeParams } from './client';
import { CONVERSATION_FIELDS, FOLDER_FIELDS, MESSAGE_FIELDS, decode, encode, encodePatch } from './codecs';
import { nextSequence } from './sequence';
import { count, int, num } from './values';

function folderSummary(row: Record<string, unknown>): FolderSummary {
  return { ...decode(FOLDER_FIELDS, row.folder), conversation_count: num(row.conversation_count) };
}

/** `(:Conversation)-[:HAS_MESSAGE]->(:Message)`; `(:ConversationFolder)`, which conversations name by `folder_id`. */
export class Neo4jConversationStore implements ConversationStore {
  constructor(private readonly db: Neo4jClient) {}

  async create(scope: Scope, conversation: ConversationRecord): Promise<void> {
    await this.db.writeRows('conversations/create', { ...scopeParams(scope), props: encode(CONVERSATION_FIELDS, conversation) });
  }

  async get(scope: Scope, id: string): Promise<ConversationRecord | null> {
    const rows = await this.db.readRows('conversations/get', { ...scopeParams(scope), id });
    return rows.length ? decode(CONVERSATION_FIELDS, rows[0].conversation) : null;
  }

  async list(
    scope: Scope,
    query: { limit: number; offset: number } & ConversationFilter & ConversationOrder,
  ): Promise<Page<ConversationRecord>> {
    const [row] = await this.db.readRows('conversations/list', {
      ...scopeParams(scope),
      folder_id: query.folderId ?? null,
      unfiled: query.unfiled ?? null,
      pinned: query.pinned ?? null,
      archived: query.archived ?? null,
      search: query.search?.toLowerCase() ?? null,
      modes: query.modes ?? null,
      sort: query.sort ?? 'updated_at',
      descending: (query.order ?? 'desc') === 'desc',
      offset: count(query.offset),
      limit: count(query.limit),
    });
    return { items: (row.conversations as unknown[]).map((c) => decode(CONVERSATION_FIELDS, c)), total: num(row.total) };
  }

  async update(scope: Scope, id: string, patch: Partial<ConversationRecord>): Promise<void> {
    await this.db.writeRows('conversations/update', { ...scopeParams(scope), id, patch: encodePatch(CONVERSATION_FIELDS, patch) });
  }

  async delete(scope: Scope, id: string): Promise<boolean> {
    const [row] = await this.db.writeRows('conversations/delete', { ...scopeParams(scope), id });
    return num(row?.deleted) > 0;
  }

  /** The conversation must exist in the same workspace. message_count is the caller's to maintain. */
  async addMessage(scope: Scope, message: MessageRecord): Promise<void> {
    const rows = await this.db.writeRows('messages/add', {
      ...scopeParams(scope),
      props: encode(MESSAGE_FIELDS, message),
      seq: int(nextSequence()),
    });
    if (rows.length === 0) throw new Error(`conversation ${message.conversation_id} does not exist`);
  }

  /** A message keeps its conversation and its place: conversation_id and created_at are not patched. */
  async updateMessage(scope: Scope, id: string, patch: Partial<MessageRecord>): Promise<void> {
    await this.db.writeRows('messages/update', {
      ...scopeParams(scope),
      id,
      patch: encodePatch(MESSAGE_FIELDS, patch, ['conversation_id', 'created_at']),
    });
  }

  async listMessages(scope: Scope, conversationId: string, query: { limit: number; offset: number }): Promise<Page<MessageRecord>> {
    const [row] = await this.db.readRows('messages/list', {
      ...scopeParams(scope),
      conversation_id: conversationId,
      offset: count(query.offset),
      limit: count(query.limit),
    });
    return { items: (row.messages as unknown[]).map((m) => decode(MESSAGE_FIELDS, m)), total: num(row.total) };
  }

  async createFolder(scope: Scope, folder: FolderRecord): Promise<void> {
    await this.db.writeRows('folders/create', { ...scopeParams(scope), props: encode(FOLDER_FIELDS, folder) });
  }

  async getFolder(scope: Scope, id: string): Promise<FolderSummary | null> {
    const rows = await this.db.readRows('folders/get', { ...scopeParams(scope), id });
    return rows.length ? folderSummary(rows[0]) : null;
  }

  async listFolders(scope: Scope): Promise<FolderSummary[]> {
    return (await this.db.readRows('folders/list', scopeParams(scope))).map(folderSummary);
  }

  async updateFolder(scope: Scope, id: string, patch: Partial<FolderRecord>): Promise<void> {
    await this.db.writeRows('folders/update', { ...scopeParams(scope), id, patch: encodePatch(FOLDER_FIELDS, patch) });
  }

  async deleteFolder(scope: Scope, id: string): Promise<boolean> {
    const [row] = await this.db.writeRows('folders/delete', { ...scopeParams(scope), id });
    return num(row?.deleted) > 0;
  }
}
