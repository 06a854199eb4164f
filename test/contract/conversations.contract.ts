import { at, makeConversation, makeFolder, makeMessage } from './fixtures';
import { type StoresCleanup, type StoresFactory, useStores } from './harness';

export function conversationStoreContract(name: string, makeStores: StoresFactory, cleanup?: StoresCleanup): void {
  describe(`${name}: ConversationStore contract`, () => {
    const ctx = useStores(makeStores, cleanup);
    const conversations = () => ctx.stores().conversations;

    it('creates, gets, updates and deletes a conversation', async () => {
      const scope = ctx.scope();
      const conversation = makeConversation();
      await conversations().create(scope, conversation);
      expect(await conversations().get(scope, conversation.id)).toEqual(conversation);
      await conversations().update(scope, conversation.id, { title: 'Renamed', message_count: 2, updated_at: at(5) });
      expect(await conversations().get(scope, conversation.id)).toEqual({
        ...conversation,
        title: 'Renamed',
        message_count: 2,
        updated_at: at(5),
      });
      await conversations().update(scope, 'missing', { title: 'x' });
      expect(await conversations().get(scope, 'missing')).toBeNull();
      expect(await conversations().delete(scope, conversation.id)).toBe(true);
      expect(await conversations().delete(scope, conversation.id)).toBe(false);
      expect(await conversations().get(scope, conversation.id)).toBeNull();
    });

    it('hands out copies: mutating inputs or results never changes stored records', async () => {
      const scope = ctx.scope();
      const conversation = makeConversation();
      const message = makeMessage(conversation.id);
      const [conversationCopy, messageCopy] = [structuredClone(conversation), structuredClone(message)];
      await conversations().create(scope, conversation);
      await conversations().addMessage(scope, message);
      conversation.title = 'mutated';
      (message.sources as unknown[]).push('mutated');
      (await conversations().get(scope, conversation.id))!.title = 'x';
      (await conversations().list(scope, { limit: 5, offset: 0 })).items[0].message_count = 9;
      const listed = (await conversations().listMessages(scope, conversation.id, { limit: 5, offset: 0 })).items[0];
      (listed.sources[0] as { chunks: string[] }).chunks.push('x');
      listed.content = 'x';
      expect(await conversations().get(scope, conversation.id)).toEqual(conversationCopy);
      expect((await conversations().listMessages(scope, conversation.id, { limit: 5, offset: 0 })).items).toEqual([messageCopy]);
    });

    it('lists conversations most recently updated first, with totals and pagination', async () => {
      const scope = ctx.scope();
      const all = Array.from({ length: 5 }, (_, i) => makeConversation({ id: `c-${i}`, updated_at: at(i) }));
      for (const c of all) await conversations().create(scope, c);
      await conversations().update(scope, 'c-1', { updated_at: at(10) });
      const first = await conversations().list(scope, { limit: 3, offset: 0 });
      const second = await conversations().list(scope, { limit: 3, offset: 3 });
      expect([first.total, second.total]).toEqual([5, 5]);
      expect([...first.items, ...second.items].map((c) => c.id)).toEqual(['c-1', 'c-4', 'c-3', 'c-2', 'c-0']);
    });

    it('lists messages by creation time then insertion order, with totals and pagination', async () => {
      const scope = ctx.scope();
      const conversation = makeConversation();
      await conversations().create(scope, conversation);
      const m = (id: string, minute: number) => makeMessage(conversation.id, { id, created_at: at(minute) });
      for (const message of [m('m1', 1), m('m2', 2), m('m2b', 2), m('m0', 0), m('m3', 3), m('m2c', 2)]) {
        await conversations().addMessage(scope, message);
      }
      const first = await conversations().listMessages(scope, conversation.id, { limit: 4, offset: 0 });
      const second = await conversations().listMessages(scope, conversation.id, { limit: 4, offset: 4 });
      expect([first.total, second.total]).toEqual([6, 6]);
      expect([...first.items, ...second.items].map((x) => x.id)).toEqual(['m0', 'm1', 'm2', 'm2b', 'm2c', 'm3']);
      expect(await conversations().listMessages(scope, 'missing', { limit: 4, offset: 0 })).toEqual({ items: [], total: 0 });
    });

    it('updates a message in place', async () => {
      const scope = ctx.scope();
      const conversation = makeConversation();
      await conversations().create(scope, conversation);
      const [first, streaming] = [
        makeMessage(conversation.id, { created_at: at(1) }),
        makeMessage(conversation.id, { role: 'assistant', status: 'streaming', content: '', created_at: at(2) }),
      ];
      await conversations().addMessage(scope, first);
      await conversations().addMessage(scope, streaming);
      const patch = { content: 'Alice is a person.', status: 'complete' as const, sources: [{ id: 'doc-9' }] };
      await conversations().updateMessage(scope, streaming.id, patch);
      await conversations().updateMessage(scope, 'missing', patch);
      const page = await conversations().listMessages(scope, conversation.id, { limit: 10, offset: 0 });
      expect(page.items).toEqual([first, { ...streaming, ...patch }]);
    });

    it('deleting a conversation deletes its messages', async () => {
      const scope = ctx.scope();
      const conversation = makeConversation();
      await conversations().create(scope, conversation);
      await conversations().addMessage(scope, makeMessage(conversation.id));
      await conversations().delete(scope, conversation.id);
      expect(await conversations().listMessages(scope, conversation.id, { limit: 10, offset: 0 })).toEqual({ items: [], total: 0 });
      await conversations().create(scope, conversation);
      expect((await conversations().listMessages(scope, conversation.id, { limit: 10, offset: 0 })).total).toBe(0);
    });

    it('keeps workspaces apart: another workspace neither sees nor changes conversations or messages', async () => {
      const [a, b] = [ctx.scope(), ctx.scope()];
      const conversation = makeConversation();
      const message = makeMessage(conversation.id);
      await conversations().create(a, conversation);
      await conversations().addMessage(a, message);
      expect(await conversations().get(b, conversation.id)).toBeNull();
      expect(await conversations().list(b, { limit: 10, offset: 0 })).toEqual({ items: [], total: 0 });
      expect(await conversations().listMessages(b, conversation.id, { limit: 10, offset: 0 })).toEqual({ items: [], total: 0 });
      await expect(conversations().addMessage(b, makeMessage(conversation.id))).rejects.toThrow();
      await conversations().update(b, conversation.id, { title: 'hijacked' });
      await conversations().updateMessage(b, message.id, { content: 'hijacked' });
      expect(await conversations().delete(b, conversation.id)).toBe(false);
      expect(await conversations().get(a, conversation.id)).toEqual(conversation);
      expect((await conversations().listMessages(a, conversation.id, { limit: 10, offset: 0 })).items).toEqual([message]);
    });

    it('creates, lists, renames and deletes folders, each with the number of conversations filed in it', async () => {
      const scope = ctx.scope();
      const [work, home] = [makeFolder({ name: 'Work' }), makeFolder({ name: 'Home' })];
      await conversations().createFolder(scope, work);
      await conversations().createFolder(scope, home);
      await conversations().create(scope, makeConversation({ folder_id: work.id }));
      await conversations().create(scope, makeConversation({ folder_id: work.id }));
      await conversations().create(scope, makeConversation());
      expect(await conversations().listFolders(scope)).toEqual([
        { ...home, conversation_count: 0 },
        { ...work, conversation_count: 2 },
      ]);
      expect(await conversations().getFolder(scope, work.id)).toEqual({ ...work, conversation_count: 2 });
      expect(await conversations().getFolder(scope, 'missing')).toBeNull();
      await conversations().updateFolder(scope, home.id, { name: 'Archive', updated_at: at(5) });
      await conversations().updateFolder(scope, 'missing', { name: 'x' });
      expect(await conversations().getFolder(scope, home.id)).toEqual({
        ...home,
        name: 'Archive',
        updated_at: at(5),
        conversation_count: 0,
      });
      expect((await conversations().listFolders(scope)).map((f) => f.name)).toEqual(['Archive', 'Work']);
      expect(await conversations().deleteFolder(scope, home.id)).toBe(true);
      expect(await conversations().deleteFolder(scope, home.id)).toBe(false);
      expect(await conversations().getFolder(scope, home.id)).toBeNull();
      expect((await conversations().listFolders(scope)).map((f) => f.id)).toEqual([work.id]);
    });

    it('files conversations in folders, lists a folder, and leaves them in no folder when it is deleted', async () => {
      const scope = ctx.scope();
      const folder = makeFolder();
      await conversations().createFolder(scope, folder);
      const all = Array.from({ length: 4 }, (_, i) => makeConversation({ id: `c-${i}`, updated_at: at(i) }));
      for (const c of all) await conversations().create(scope, c);
      for (const id of ['c-0', 'c-2', 'c-3']) await conversations().update(scope, id, { folder_id: folder.id });
      await conversations().update(scope, 'c-3', { folder_id: null });
      const filed = await conversations().list(scope, { limit: 1, offset: 0, folderId: folder.id });
      const rest = await conversations().list(scope, { limit: 5, offset: 1, folderId: folder.id });
      expect([filed.total, rest.total]).toEqual([2, 2]);
      expect([...filed.items, ...rest.items].map((c) => [c.id, c.folder_id])).toEqual([
        ['c-2', folder.id],
        ['c-0', folder.id],
      ]);
      expect(await conversations().list(scope, { limit: 5, offset: 0, folderId: 'missing' })).toEqual({ items: [], total: 0 });
      expect((await conversations().list(scope, { limit: 5, offset: 0 })).total).toBe(4);
      expect(await conversations().deleteFolder(scope, folder.id)).toBe(true);
      expect(await conversations().get(scope, 'c-2')).toEqual({ ...all[2], folder_id: null });
      expect((await conversations().list(scope, { limit: 5, offset: 0 })).items.map((c) => c.folder_id)).toEqual([null, null, null, null]);
    });

    it('pins and archives conversations, and lists them by flag and by whether they are in a folder', async () => {
      const scope = ctx.scope();
      const folder = makeFolder();
      await conversations().createFolder(scope, folder);
      const all = Array.from({ length: 4 }, (_, i) => makeConversation({ id: `f-${i}`, updated_at: at(i) }));
      for (const c of all) await conversations().create(scope, c);
      await conversations().update(scope, 'f-0', { is_pinned: true, folder_id: folder.id });
      await conversations().update(scope, 'f-1', { is_archived: true });
      await conversations().update(scope, 'f-2', { is_pinned: true, is_archived: true });
      await conversations().update(scope, 'f-2', { is_pinned: false });
      expect(await conversations().get(scope, 'f-2')).toEqual({ ...all[2], is_pinned: false, is_archived: true });
      const ids = async (filter: Record<string, unknown>) =>
        (await conversations().list(scope, { limit: 10, offset: 0, ...filter })).items.map((c) => c.id);
      expect(await ids({ pinned: true })).toEqual(['f-0']);
      expect(await ids({ pinned: false })).toEqual(['f-3', 'f-2', 'f-1']);
      expect(await ids({ archived: true })).toEqual(['f-2', 'f-1']);
      expect(await ids({ archived: false })).toEqual(['f-3', 'f-0']);
      expect(await ids({ archived: false, pinned: false })).toEqual(['f-3']);
      expect(await ids({ unfiled: true })).toEqual(['f-3', 'f-2', 'f-1']);
      expect(await ids({ unfiled: false, pinned: true })).toEqual(['f-0']);
      expect(await ids({ folderId: folder.id, archived: true })).toEqual([]);
      expect((await conversations().list(scope, { limit: 1, offset: 1, archived: true })).total).toBe(2);
    });

    it('lists by words of the title (whatever the case) and by mode, sorted by the field and order asked for', async () => {
      const scope = ctx.scope();
      const all = [
        makeConversation({ id: 's-0', title: 'Budget notes', mode: 'local', created_at: at(0), updated_at: at(5) }),
        makeConversation({ id: 's-1', title: 'alpha NOTES', mode: 'global', created_at: at(1), updated_at: at(3) }),
        makeConversation({ id: 's-2', title: 'Zeta', mode: 'local', created_at: at(2), updated_at: at(4) }),
        makeConversation({ id: 's-3', title: 'Zeta', mode: 'local', created_at: at(2), updated_at: at(4) }),
      ];
      for (const c of all) await conversations().create(scope, c);
      const ids = async (query: Record<string, unknown>) =>
        (await conversations().list(scope, { limit: 10, offset: 0, ...query })).items.map((c) => c.id);
      expect(await ids({})).toEqual(['s-0', 's-2', 's-3', 's-1']);
      expect(await ids({ sort: 'updated_at', order: 'asc' })).toEqual(['s-1', 's-2', 's-3', 's-0']);
      expect(await ids({ sort: 'created_at' })).toEqual(['s-2', 's-3', 's-1', 's-0']);
      expect(await ids({ sort: 'title', order: 'asc' })).toEqual(['s-0', 's-2', 's-3', 's-1']);
      expect(await ids({ sort: 'title', order: 'desc' })).toEqual(['s-1', 's-2', 's-3', 's-0']);
      expect(await ids({ search: 'notes' })).toEqual(['s-0', 's-1']);
      expect(await ids({ search: 'ET N' })).toEqual(['s-0']);
      expect(await ids({ modes: ['local'], search: 'zeta' })).toEqual(['s-2', 's-3']);
      expect(await ids({ modes: ['global', 'naive'] })).toEqual(['s-1']);
      expect(await ids({ modes: [] })).toEqual([]);
      const page = await conversations().list(scope, { limit: 1, offset: 1, sort: 'title', order: 'asc' });
      expect([page.total, page.items.map((c) => c.id)]).toEqual([4, ['s-2']]);
    });

    it('keeps workspaces apart: another workspace neither sees nor changes folders', async () => {
      const [a, b] = [ctx.scope(), ctx.scope()];
      const folder = makeFolder();
      await conversations().createFolder(a, folder);
      const conversation = makeConversation({ folder_id: folder.id });
      await conversations().create(a, conversation);
      expect(await conversations().getFolder(b, folder.id)).toBeNull();
      expect(await conversations().listFolders(b)).toEqual([]);
      await conversations().updateFolder(b, folder.id, { name: 'hijacked' });
      expect(await conversations().deleteFolder(b, folder.id)).toBe(false);
      expect(await conversations().list(b, { limit: 5, offset: 0, folderId: folder.id })).toEqual({ items: [], total: 0 });
      expect(await conversations().getFolder(a, folder.id)).toEqual({ ...folder, conversation_count: 1 });
      expect(await conversations().get(a, conversation.id)).toEqual(conversation);
    });
  });
}
