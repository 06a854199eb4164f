import { QdrantClient } from '@qdrant/js-client-rest';
import type { QdrantConfig } from '../../config/types';
import type { Scope, VectorHit, VectorKind, VectorPoint } from '../../domain/types';
import type { VectorFilter, VectorStore } from '../ports';
import { pointId } from './point-id';

const KINDS: VectorKind[] = ['chunk', 'entity', 'relationship'];
const BATCH = 256;
const PREFIX = 'kgrag';

type Filter = { must: Array<{ key: string; match: { value: string } | { any: string[] } } | { has_id: string[] }> };

interface Payload {
  tenant_id: string;
  workspace_id: string;
  record_id: string;
  document_ids: string[];
}

/** A collection per vector kind and dimension, e.g. `kgrag_chunk_256`. */
export function collectionName(kind: VectorKind, dimension: number): string {
  return `${PREFIX}_${kind}_${dimension}`;
}

function parseCollection(name: string): { kind: VectorKind; dimension: number } | null {
  const match = /^kgrag_(chunk|entity|relationship)_(\d+)$/.exec(name);
  return match ? { kind: match[1] as VectorKind, dimension: Number(match[2]) } : null;
}

function statusOf(err: unknown): number | undefined {
  return (err as { status?: number })?.status;
}

/** Network failures carry the code the problem middleware maps to 503. */
export class QdrantUnavailableError extends Error {
  readonly code = 'ServiceUnavailable';
}

const NETWORK_CODES = /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EHOSTUNREACH|ETIMEDOUT|EAI_AGAIN|UND_ERR_\w+)$/;

/**
 * The server closed the kept-alive connection the request went out on (it closes idle ones on its own clock, and a
 * request can cross the close: seen once in 200 s of bulk upserts, and twice in a row in an hour of them). Every
 * request of this store is idempotent (points have fixed ids), so such a request is sent again (CLOSED_RETRIES).
 */
function closedUnderneath(err: unknown): boolean {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  if (statusOf(err) !== undefined || !cause) return false;
  // fetch reports it with the socket error's code, or (after the request went out) as an error naming it.
  return /^(UND_ERR_SOCKET|ECONNRESET|EPIPE)$/.test(cause.code ?? '') || /other side closed|ECONNRESET|EPIPE/.test(cause.message ?? '');
}

/**
 * Times a request is sent again when the server closed the connection under it, after 50, 200 and 800 ms: every
 * pooled connection can go stale at once, and a server busy indexing closes some; each request is idempotent.
 */
const CLOSED_RETRIES = 3;
const CLOSED_BACKOFF_MS = 50;

/** Connection failures, timeouts and 5xx answers become a 503-mapped error; 4xx answers of the server pass through. */
function unavailable(err: unknown): unknown {
  if (err instanceof QdrantUnavailableError) return err;
  const status = statusOf(err);
  if (status !== undefined && status >= 500) return new QdrantUnavailableError(`Qdrant answered HTTP ${status}`);
  if (status !== undefined) return err;
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  const network =
    e?.name === 'QdrantClientTimeoutError' ||
    (e?.name === 'TypeError' && e.message === 'fetch failed') ||
    NETWORK_CODES.test(e?.cause?.code ?? '');
  if (!network) return err;
  const reason = e.cause?.code ?? e.cause?.message ?? e.message ?? String(err);
  return new QdrantUnavailableError(`Qdrant is unreachable: ${reason}`);
}

/** No answer at all from the node (refused, reset, timed out): another node of a cluster may answer. */
function unreachable(err: unknown): boolean {
  return statusOf(err) === undefined;
}

function workspaceFilter(scope: Scope, documentIds?: string[], pointIds?: string[]): Filter {
  const must: Filter['must'] = [
    { key: 'workspace_id', match: { value: scope.workspaceId } },
    { key: 'tenant_id', match: { value: scope.tenantId ?? '' } },
  ];
  if (documentIds) must.push({ key: 'document_ids', match: { any: documentIds } });
  if (pointIds) must.push({ has_id: pointIds });
  return { must };
}

/**
 * Vectors in Qdrant: cosine collections shared by all workspaces, a `workspace_id` payload index marked as the
 * tenant key, `document_ids` indexed for filters, and point ids derived from our ids.
 */
/**
 * Answers uncompressed. Node's fetch asks for gzip or brotli, and Qdrant 1.18's compressed answers reach it about
 * 45 ms late whatever their size: a search of 15,000 points took 48 ms instead of 3 to 5 (scripts/bench/neo4j.ts
 * with QDRANT_URL; see README). The answers the store reads are ids and scores, a few KB.
 */
const UNCOMPRESSED = 'identity';

/** How the service lays out the collections it creates, and how many copies a read asks (src/config/qdrant.ts). */
export type QdrantLayout = Pick<QdrantConfig, 'shards' | 'replicationFactor' | 'writeConsistency' | 'readConsistency'>;

const SINGLE_NODE: QdrantLayout = { shards: null, replicationFactor: null, writeConsistency: null, readConsistency: null };

export class QdrantVectorStore implements VectorStore {
  private readonly ensured = new Set<string>();
  /** The node requests go to: the first that answered; the next one when it stops answering. */
  private current = 0;

  constructor(
    private readonly nodes: QdrantClient[],
    readonly url: string,
    private readonly layout: QdrantLayout = SINGLE_NODE,
  ) {}

  /** `url`: one server, or the nodes of a cluster, comma-separated. */
  static create(url: string, apiKey: string | null, layout: QdrantLayout = SINGLE_NODE): QdrantVectorStore {
    const urls = url.split(',').map((u) => u.trim().replace(/\/+$/, ''));
    const nodes = urls.map(
      (node) =>
        new QdrantClient({
          url: node,
          apiKey: apiKey ?? undefined,
          checkCompatibility: false,
          timeout: 30_000,
          headers: { 'accept-encoding': UNCOMPRESSED },
        }),
    );
    return new QdrantVectorStore(nodes, urls.join(','), layout);
  }

  static fromConfig(config: QdrantConfig): QdrantVectorStore {
    return QdrantVectorStore.create(config.urls.join(','), config.apiKey, config);
  }

  /** The client of the node in use. */
  get client(): QdrantClient {
    return this.nodes[this.current];
  }

  /**
   * Start-up: a node answers, and the collections of the configured dimension exist with that dimension.
   * Throws one line naming what to fix.
   */
  async prepare(dimension: number): Promise<void> {
    try {
      await this.call(() => this.client.getCollections());
    } catch (err) {
      const status = statusOf(err);
      if (status === 401 || status === 403) {
        throw new Error(`QDRANT_URL ${this.url} refused the request (HTTP ${status}); check QDRANT_API_KEY`);
      }
      const reason = (unavailable(err) as Error).message.replace(/^Qdrant is unreachable: /, '');
      throw new Error(`QDRANT_URL ${this.url} is unreachable: ${reason}; start Qdrant or fix QDRANT_URL`);
    }
    for (const kind of KINDS) await this.ensureCollection(kind, dimension);
  }

  async ping(timeoutMs = 2_000): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    const check = this.call(() => this.client.getCollections()).then(
      () => true,
      () => false,
    );
    try {
      return await Promise.race([check, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The first vector of a kind fixes the workspace's dimension for that kind: a batch of another dimension is
   * refused before anything is written, while the workspace holds vectors of the old one.
   */
  async upsert(scope: Scope, kind: VectorKind, points: VectorPoint[]): Promise<void> {
    if (points.length === 0) return;
    const dimension = points[0].vector.length;
    const odd = points.find((p) => p.vector.length !== dimension);
    if (odd) throw new Error(`vector ${odd.id} has dimension ${odd.vector.length}, the batch has ${dimension}`);
    await this.call(async () => {
      for (const other of await this.collections(kind)) {
        if (other.dimension === dimension) continue;
        const held = await this.client.count(other.name, { filter: workspaceFilter(scope), exact: true });
        if (held.count > 0) throw new Error(`vectors have dimension ${dimension}, the ${kind} index holds ${other.dimension}`);
      }
      const name = await this.ensureCollection(kind, dimension);
      for (let i = 0; i < points.length; i += BATCH) {
        const batch = points.slice(i, i + BATCH).map((p) => ({
          id: pointId(scope, kind, p.id),
          vector: p.vector,
          payload: {
            tenant_id: scope.tenantId ?? '',
            workspace_id: scope.workspaceId,
            record_id: p.id,
            document_ids: [...p.document_ids],
          } satisfies Payload,
        }));
        await this.client.upsert(name, { wait: true, points: batch });
      }
    });
  }

  async search(scope: Scope, kind: VectorKind, vector: number[], topK: number, filter?: VectorFilter): Promise<VectorHit[]> {
    const k = Math.floor(topK);
    if (k <= 0 || vector.length === 0 || filter?.documentIds?.length === 0 || filter?.ids?.length === 0) return [];
    const name = collectionName(kind, vector.length);
    return this.call(async () => {
      try {
        const result = await this.client.query(name, {
          query: vector,
          filter: workspaceFilter(
            scope,
            filter?.documentIds,
            filter?.ids?.map((id) => pointId(scope, kind, id)),
          ),
          limit: k,
          with_payload: ['record_id'],
          ...this.reads(),
        });
        return result.points
          .map((p) => ({ id: String((p.payload as Partial<Payload> | null)?.record_id ?? p.id), score: p.score }))
          .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      } catch (err) {
        if (statusOf(err) === 404) return [];
        throw err;
      }
    });
  }

  async delete(scope: Scope, kind: VectorKind, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.call(async () => {
      const points = ids.map((id) => pointId(scope, kind, id));
      for (const { name } of await this.collections(kind)) {
        for (let i = 0; i < points.length; i += BATCH) {
          await this.client.delete(name, { wait: true, points: points.slice(i, i + BATCH) });
        }
      }
    });
  }

  async vectorsOf(scope: Scope, kind: VectorKind, ids: string[]): Promise<Map<string, number[]>> {
    const out = new Map<string, number[]>();
    if (ids.length === 0) return out;
    await this.call(async () => {
      const points = ids.map((id) => pointId(scope, kind, id));
      for (const { name } of await this.collections(kind)) {
        for (let i = 0; i < points.length; i += BATCH) {
          const found = await this.client.retrieve(name, {
            ids: points.slice(i, i + BATCH),
            with_payload: ['record_id'],
            with_vector: true,
            ...this.reads(),
          });
          for (const p of found) {
            const id = (p.payload as Partial<Payload> | null)?.record_id;
            if (typeof id === 'string' && Array.isArray(p.vector)) out.set(id, p.vector as number[]);
          }
        }
      }
    });
    return out;
  }

  async count(scope: Scope, kind: VectorKind): Promise<number> {
    return this.call(async () => {
      let total = 0;
      for (const { name } of await this.collections(kind)) {
        total += (await this.client.count(name, { filter: workspaceFilter(scope), exact: true })).count;
      }
      return total;
    });
  }

  async ids(scope: Scope, kind: VectorKind): Promise<string[]> {
    return this.call(async () => {
      const ids: string[] = [];
      for (const { name } of await this.collections(kind)) {
        let offset: string | number | null | undefined = undefined;
        do {
          const page = await this.client.scroll(name, {
            filter: workspaceFilter(scope),
            with_payload: ['record_id'],
            with_vector: false,
            limit: BATCH,
            ...this.reads(),
            ...(offset !== undefined ? { offset } : {}),
          });
          for (const p of page.points) ids.push(String((p.payload as Partial<Payload> | null)?.record_id ?? p.id));
          offset = page.next_page_offset as string | number | null | undefined;
        } while (offset !== null && offset !== undefined);
      }
      return ids;
    });
  }

  async bytes(scope: Scope): Promise<number> {
    return this.call(async () => {
      let total = 0;
      for (const { name, dimension } of await this.collections()) {
        total += (await this.client.count(name, { filter: workspaceFilter(scope), exact: true })).count * dimension * 4;
      }
      return total;
    });
  }

  async dropWorkspace(scope: Scope): Promise<void> {
    await this.call(async () => {
      for (const { name } of await this.collections()) {
        await this.client.delete(name, { wait: true, filter: workspaceFilter(scope) });
      }
    });
  }

  /** Our collections on the server, optionally of one kind. */
  private async collections(kind?: VectorKind): Promise<Array<{ name: string; kind: VectorKind; dimension: number }>> {
    const { collections } = await this.client.getCollections();
    const ours = [];
    for (const { name } of collections) {
      const parsed = parseCollection(name);
      if (parsed && (!kind || parsed.kind === kind)) ours.push({ name, ...parsed });
    }
    return ours;
  }

  /** Creates the collection with its payload indexes when missing; refuses one of another dimension. */
  private async ensureCollection(kind: VectorKind, dimension: number): Promise<string> {
    const name = collectionName(kind, dimension);
    if (this.ensured.has(name)) return name;
    const { exists } = await this.client.collectionExists(name);
    if (exists) {
      const info = await this.client.getCollection(name);
      const vectors = info.config.params.vectors as { size?: number } | undefined;
      if (vectors?.size !== undefined && vectors.size !== dimension) {
        throw new Error(
          `Qdrant collection ${name} holds ${vectors.size}-dimension vectors, not SERVICE_EMBEDDING_DIMENSION=${dimension}; ` +
            `delete the collection or set SERVICE_EMBEDDING_DIMENSION=${vectors.size}`,
        );
      }
    } else {
      try {
        const { shards, replicationFactor, writeConsistency } = this.layout;
        await this.client.createCollection(name, {
          vectors: { size: dimension, distance: 'Cosine' },
          ...(shards !== null ? { shard_number: shards } : {}),
          ...(replicationFactor !== null ? { replication_factor: replicationFactor } : {}),
          ...(writeConsistency !== null ? { write_consistency_factor: writeConsistency } : {}),
        });
      } catch (err) {
        // Another instance may have created it meanwhile.
        if (statusOf(err) !== 409) throw err;
      }
      await this.client.createPayloadIndex(name, {
        field_name: 'workspace_id',
        field_schema: { type: 'keyword', is_tenant: true },
        wait: true,
      });
      await this.client.createPayloadIndex(name, { field_name: 'tenant_id', field_schema: 'keyword', wait: true });
      await this.client.createPayloadIndex(name, { field_name: 'document_ids', field_schema: 'keyword', wait: true });
    }
    this.ensured.add(name);
    return name;
  }

  /** The read consistency of searches and scrolls, when one is configured. */
  private reads(): { consistency?: NonNullable<QdrantLayout['readConsistency']> } {
    return this.layout.readConsistency !== null ? { consistency: this.layout.readConsistency } : {};
  }

  /**
   * Runs a request, turning network failures into 503-mapped errors. A connection the server closed under the
   * request is tried again on the same node; a node that does not answer at all is left for the next one, until
   * each has been tried once.
   */
  private async call<T>(work: () => Promise<T>): Promise<T> {
    let closedRetries = 0;
    let nodesTried = 1;
    for (;;) {
      try {
        return await work();
      } catch (err) {
        if (closedUnderneath(err) && closedRetries < CLOSED_RETRIES) {
          await new Promise((resolve) => setTimeout(resolve, CLOSED_BACKOFF_MS * 4 ** closedRetries++));
          continue;
        }
        const mapped = unavailable(err);
        if (!(mapped instanceof QdrantUnavailableError) || !unreachable(err) || nodesTried >= this.nodes.length) throw mapped;
        this.current = (this.current + 1) % this.nodes.length;
        nodesTried += 1;
      }
    }
  }
}
