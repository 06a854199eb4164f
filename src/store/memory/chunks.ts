import type { ChunkRecord, Scope } from '../../domain/types';
import type { ChunkLinks, ChunkRef, ChunkStore } from '../ports';
import { copyChunk } from './records';
import { WorkspaceStates } from './workspaces';

interface ChunkState {
  byId: Map<string, ChunkRecord>;
  idsByDocument: Map<string, Set<string>>;
}

export class MemoryChunkStore implements ChunkStore {
  private readonly workspaces = new WorkspaceStates<ChunkState>(() => ({ byId: new Map(), idsByDocument: new Map() }));

  async upsertMany(scope: Scope, chunks: ChunkRecord[]): Promise<void> {
    if (chunks.length === 0) return;
    const state = this.workspaces.obtain(scope);
    for (const chunk of chunks) {
      const previous = state.byId.get(chunk.id);
      if (previous && previous.document_id !== chunk.document_id) this.unindex(state, previous);
      const stored = copyChunk(chunk);
      state.byId.set(stored.id, stored);
      let ids = state.idsByDocument.get(stored.document_id);
      if (!ids) state.idsByDocument.set(stored.document_id, (ids = new Set()));
      ids.add(stored.id);
    }
  }

  async get(scope: Scope, id: string): Promise<ChunkRecord | null> {
    const chunk = this.workspaces.find(scope)?.byId.get(id);
    return chunk ? copyChunk(chunk) : null;
  }

  /** In the order asked for; unknown ids are skipped. */
  async getMany(scope: Scope, ids: string[]): Promise<ChunkRecord[]> {
    const state = this.workspaces.find(scope);
    if (!state) return [];
    const found: ChunkRecord[] = [];
    for (const id of ids) {
      const chunk = state.byId.get(id);
      if (chunk) found.push(copyChunk(chunk));
    }
    return found;
  }

  async linksOf(scope: Scope, ids: string[]): Promise<ChunkLinks[]> {
    return (await this.getMany(scope, ids)).map(({ id, document_id, entity_ids, relationship_ids }) => ({
      id,
      document_id,
      entity_ids,
      relationship_ids,
    }));
  }

  async setLinks(scope: Scope, links: ChunkLinks[]): Promise<void> {
    const state = this.workspaces.find(scope);
    for (const link of state ? links : []) {
      const chunk = state?.byId.get(link.id);
      if (chunk) state?.byId.set(link.id, { ...chunk, entity_ids: [...link.entity_ids], relationship_ids: [...link.relationship_ids] });
    }
  }

  /** Ordered by chunk index. */
  async refs(scope: Scope): Promise<ChunkRef[]> {
    const state = this.workspaces.find(scope);
    return [...(state?.byId.values() ?? [])].map((c) => ({
      id: c.id,
      document_id: c.document_id,
      linked: c.entity_ids.length > 0 || c.relationship_ids.length > 0,
    }));
  }

  async listByDocument(scope: Scope, documentId: string): Promise<ChunkRecord[]> {
    const state = this.workspaces.find(scope);
    const ids = state?.idsByDocument.get(documentId);
    if (!state || !ids) return [];
    return [...ids]
      .map((id) => state.byId.get(id) as ChunkRecord)
      .sort((a, b) => a.index - b.index)
      .map(copyChunk);
  }

  async deleteByDocument(scope: Scope, documentId: string, keep: readonly string[] = []): Promise<number> {
    const state = this.workspaces.find(scope);
    const ids = state?.idsByDocument.get(documentId);
    if (!state || !ids) return 0;
    const kept = new Set(keep);
    let deleted = 0;
    for (const id of ids) {
      if (kept.has(id)) continue;
      state.byId.delete(id);
      ids.delete(id);
      deleted++;
    }
    if (ids.size === 0) state.idsByDocument.delete(documentId);
    return deleted;
  }

  async count(scope: Scope): Promise<number> {
    return this.workspaces.find(scope)?.byId.size ?? 0;
  }

  dropWorkspace(scope: Scope): void {
    this.workspaces.drop(scope);
  }

  clear(): void {
    this.workspaces.clear();
  }

  private unindex(state: ChunkState, chunk: ChunkRecord): void {
    const ids = state.idsByDocument.get(chunk.document_id);
    ids?.delete(chunk.id);
    if (ids?.size === 0) state.idsByDocument.delete(chunk.document_id);
  }
}
