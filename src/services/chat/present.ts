import type { ConversationRecord, MessageRecord } from '../../domain/types';

/** Conversations and messages as the API shows them. */

export interface ConversationView {
  id: string;
  title: string;
  mode: string;
  message_count: number;
  /** The folder it is filed in, or null. */
  folder_id: string | null;
  is_pinned: boolean;
  is_archived: boolean;
  created_at: string;
  updated_at: string;
}

export interface MessageView {
  id: string;
  conversation_id: string;
  role: MessageRecord['role'];
  content: string;
  sources: unknown[];
  /** `streaming` while an answer is produced, `failed` when it broke off (content holds what was produced). */
  status: MessageRecord['status'];
  created_at: string;
}

export function presentConversation(c: ConversationRecord): ConversationView {
  return {
    id: c.id,
    title: c.title,
    mode: c.mode,
    message_count: c.message_count,
    folder_id: c.folder_id ?? null,
    is_pinned: c.is_pinned,
    is_archived: c.is_archived,
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
}

export function presentMessage(m: MessageRecord): MessageView {
  return {
    id: m.id,
    conversation_id: m.conversation_id,
    role: m.role,
    content: m.content,
    sources: m.sources,
    status: m.status,
    created_at: m.created_at,
  };
}
