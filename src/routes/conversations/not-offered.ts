import { z } from 'zod';
import { NotImplementedError } from '../../domain/errors';
import type { Api, HttpMethod } from '../../http/api';

const tag = 'conversations';
const idParams = z.object({ id: z.string().min(1) });
const shareParams = z.object({ share_id: z.string().min(1) });

const SHARING =
  'sharing conversations is not offered: a share link would let anyone without a credential read answers drawn from a ' +
  "workspace's documents; give the reader access to the workspace instead";
const IMPORT =
  'importing conversations is not offered: a conversation holds the answers this service gave, made by its chat (POST /api/v1/chat/completions)';
const MESSAGES =
  'messages are written by the chat (POST /api/v1/chat/completions) and go with their conversation; they are not written, edited or deleted one by one';

interface NotOffered {
  method: HttpMethod;
  path: string;
  summary: string;
  detail: string;
  params?: z.ZodType;
  access?: 'viewer';
}

/**
 * Conversation operations of EdgeQuake's that this service does not offer (docs/api.md §10): they answer as
 * EdgeQuake does with a feature off, 501, after authentication, and change nothing.
 */
const NOT_OFFERED: NotOffered[] = [
  {
    method: 'post',
    path: '/conversations/:id/share',
    summary: 'Share a conversation by link: not offered',
    detail: SHARING,
    params: idParams,
  },
  {
    method: 'delete',
    path: '/conversations/:id/share',
    summary: 'Stop sharing a conversation: not offered',
    detail: SHARING,
    params: idParams,
  },
  {
    method: 'get',
    path: '/shared/:share_id',
    summary: 'Read a shared conversation: not offered',
    detail: SHARING,
    params: shareParams,
    access: 'viewer',
  },
  { method: 'post', path: '/conversations/import', summary: 'Import conversations: not offered', detail: IMPORT },
  {
    method: 'post',
    path: '/conversations/:id/messages',
    summary: 'Add a message by hand: not offered',
    detail: MESSAGES,
    params: idParams,
  },
  { method: 'patch', path: '/messages/:id', summary: 'Edit a message: not offered', detail: MESSAGES, params: idParams },
  { method: 'delete', path: '/messages/:id', summary: 'Delete a message: not offered', detail: MESSAGES, params: idParams },
];

export function notOfferedRoutes(api: Api): void {
  for (const route of NOT_OFFERED) {
    api.route(
      {
        method: route.method,
        path: route.path,
        tag,
        summary: route.summary,
        description: route.detail,
        params: route.params,
        access: route.access,
        responses: { 501: { description: 'Not offered by this service' } },
      },
      () => {
        throw new NotImplementedError(route.detail);
      },
    );
  }
}
