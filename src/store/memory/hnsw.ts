import { dotKernel, type Kernel, kernelMemory, type WasmMemory } from './dot-kernel';
import { Heap } from './score-heap';

/**
 * An approximate nearest-neighbour index (HNSW: hierarchical navigable small-world graphs) over normalised
 * vectors, where similarity is the dot product. Nodes are added one at a time; a deleted or replaced point
 * leaves a tombstone that searches pass through but never return, and the index is rebuilt from its live
 * nodes once tombstones are a third of it. Written here rather than taken from a native addon: it needs no
 * build step (npm skips install scripts of dependencies) and shares the process's memory accounting.
 * Vectors live in a WebAssembly memory and the neighbours of a node are scored together by the SIMD kernel
 * (./dot-kernel.ts). Figures (recall@10, build time, latency) are in the README, from scripts/bench/ann.ts.
 */

export interface HnswOptions {
  /** Links per node on the upper layers (twice as many on layer 0). */
  m: number;
  /** Candidates kept while linking a new node. */
  efConstruction: number;
  /** Candidates kept while searching, at least k. */
  efSearch: number;
}

export const DEFAULT_HNSW: HnswOptions = { m: 16, efConstruction: 200, efSearch: 256 };

const PAGE = 65_536;

export class HnswIndex {
  private readonly memory: WasmMemory = kernelMemory();
  private readonly kernel: Kernel;
  private readonly rowBytes: number;
  /** Scratch after the vectors: the query, node numbers to score, their scores. */
  private readonly scratch: number;
  private capacity = 0;
  private vectors = new Float32Array(0);
  private queryAt = 0;
  private idsAt = 0;
  private outAt = 0;
  private idsView = new Int32Array(0);
  private outView = new Float32Array(0);
  private readonly ids: string[] = [];
  /** links[node][layer] = neighbour nodes. */
  private readonly links: Int32Array[][] = [];
  private readonly deleted: Uint8Array[] = [new Uint8Array(1024)];
  private readonly nodeById = new Map<string, number>();
  private entry = -1;
  private topLevel = -1;
  private tombstones = 0;
  private readonly levelFactor: number;
  private seed = 0x9e3779b9;
  private visitMark = new Uint32Array(0);
  private visitEpoch = 0;

  constructor(
    readonly stride: number,
    private readonly options: HnswOptions = DEFAULT_HNSW,
  ) {
    this.kernel = dotKernel(this.memory);
    this.rowBytes = stride * 4;
    this.levelFactor = 1 / Math.log(options.m);
    // Layer-0 links grow to 3m before pruning, plus the new node.
    this.scratch = 3 * options.m + 1;
    this.reserve(1024);
  }

  /** Live points. */
  get size(): number {
    return this.nodeById.size;
  }

  /** Adds (or replaces) a point from a normalised vector padded to the stride. */
  add(id: string, vector: Float32Array, offset = 0): void {
    const old = this.nodeById.get(id);
    if (old !== undefined) this.markDeleted(old);
    const node = this.ids.length;
    this.reserve(node + 1);
    this.vectors.set(vector.subarray(offset, offset + this.stride), node * this.stride);
    this.ids.push(id);
    this.nodeById.set(id, node);
    const level = this.randomLevel();
    this.links.push(Array.from({ length: level + 1 }, () => new Int32Array(0)));
    if (this.entry < 0) {
      this.entry = node;
      this.topLevel = level;
      return;
    }
    const at = node * this.rowBytes;
    let current = this.entry;
    let currentScore = this.score(at, [current], 1)[0];
    for (let layer = this.topLevel; layer > level; layer--) [current, currentScore] = this.greedy(at, current, currentScore, layer);
    for (let layer = Math.min(level, this.topLevel); layer >= 0; layer--) {
      const found = this.searchLayer(at, current, currentScore, this.options.efConstruction, layer);
      const max = layer === 0 ? 2 * this.options.m : this.options.m;
      const chosen = this.selectNeighbours(found.nodes, found.scores, found.size, max);
      this.links[node][layer] = Int32Array.from(chosen);
      for (const other of chosen) this.connect(other, node, layer, max);
      [currentScore, current] = [found.scores[0], found.nodes[0]];
      for (let i = 1; i < found.size; i++) if (found.scores[i] > currentScore) [currentScore, current] = [found.scores[i], found.nodes[i]];
    }
    if (level > this.topLevel) {
      this.topLevel = level;
      this.entry = node;
    }
  }

  delete(id: string): void {
    const node = this.nodeById.get(id);
    if (node === undefined) return;
    this.nodeById.delete(id);
    this.markDeleted(node);
  }

  /** Whether tombstones are a third of the nodes: the owner should rebuild the index from its live points. */
  get worn(): boolean {
    return this.tombstones > 1000 && this.tombstones * 3 > this.ids.length;
  }

  /** About `k` best live points by dot product with a normalised query padded to the stride, best first. */
  search(query: Float32Array, k: number, accept: ((id: string) => boolean) | null = null): Array<{ id: string; score: number }> {
    if (this.entry < 0 || k <= 0) return [];
    new Float32Array(this.memory.buffer, this.queryAt, this.stride).set(query.subarray(0, this.stride));
    let current = this.entry;
    let currentScore = this.score(this.queryAt, [current], 1)[0];
    for (let layer = this.topLevel; layer > 0; layer--) [current, currentScore] = this.greedy(this.queryAt, current, currentScore, layer);
    const found = this.searchLayer(this.queryAt, current, currentScore, Math.max(this.options.efSearch, k), 0);
    const out: Array<{ id: string; score: number }> = [];
    for (let i = 0; i < found.size; i++) {
      const node = found.nodes[i];
      if (this.isDeleted(node)) continue;
      const id = this.ids[node];
      if (accept && !accept(id)) continue;
      out.push({ id, score: found.scores[i] });
    }
    out.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return out.slice(0, k);
  }

  /**
   * Dot products of the vector at byte offset `at` with `count` nodes, by the kernel; the returned view is
   * valid until the next call.
   */
  private score(at: number, nodes: ArrayLike<number>, count: number): Float32Array {
    for (let i = 0; i < count; i++) this.idsView[i] = nodes[i];
    this.kernel.gather(0, this.idsAt, count, this.rowBytes, at, this.outAt);
    return this.outView;
  }

  private markDeleted(node: number): void {
    if (this.isDeleted(node)) return;
    const page = node >> 10;
    while (this.deleted.length <= page) this.deleted.push(new Uint8Array(1024));
    this.deleted[page][node & 1023] = 1;
    this.tombstones++;
  }

  private isDeleted(node: number): boolean {
    const page = this.deleted[node >> 10];
    return page !== undefined && page[node & 1023] === 1;
  }

  private randomLevel(): number {
    // xorshift32: deterministic levels, so a given insertion order builds the same index.
    this.seed ^= this.seed << 13;
    this.seed ^= this.seed >>> 17;
    this.seed ^= this.seed << 5;
    const r = ((this.seed >>> 0) + 1) / 4294967297;
    return Math.floor(-Math.log(r) * this.levelFactor);
  }

  /** Room for `nodes` vectors, then the scratch; the memory grows by doubling and never moves the vectors. */
  private reserve(nodes: number): void {
    if (nodes <= this.capacity) return;
    const capacity = Math.max(nodes, this.capacity * 2);
    const queryAt = capacity * this.rowBytes;
    const idsAt = queryAt + this.rowBytes;
    const outAt = idsAt + this.scratch * 4;
    const pages = Math.ceil((outAt + this.scratch * 4) / PAGE) - this.memory.buffer.byteLength / PAGE;
    if (pages > 0) this.memory.grow(pages);
    this.capacity = capacity;
    this.queryAt = queryAt;
    this.idsAt = idsAt;
    this.outAt = outAt;
    this.vectors = new Float32Array(this.memory.buffer, 0, capacity * this.stride);
    this.idsView = new Int32Array(this.memory.buffer, idsAt, this.scratch);
    this.outView = new Float32Array(this.memory.buffer, outAt, this.scratch);
    if (this.visitMark.length < capacity) {
      const grown = new Uint32Array(capacity);
      grown.set(this.visitMark);
      this.visitMark = grown;
    }
  }

  /** Moves to the best neighbour while one is better. */
  private greedy(at: number, start: number, startScore: number, layer: number): [number, number] {
    let current = start;
    let best = startScore;
    for (let improved = true; improved;) {
      improved = false;
      const neighbours = this.links[current][layer];
      const scores = this.score(at, neighbours, neighbours.length);
      let next = current;
      for (let i = 0; i < neighbours.length; i++) {
        if (scores[i] > best) {
          best = scores[i];
          next = neighbours[i];
          improved = true;
        }
      }
      current = next;
    }
    return [current, best];
  }

  /** The `ef` best nodes reachable from `start` on a layer (a min-heap: worst first). */
  private searchLayer(at: number, start: number, startScore: number, ef: number, layer: number): Heap {
    const epoch = ++this.visitEpoch;
    if (epoch === 0xffffffff) {
      this.visitMark.fill(0);
      this.visitEpoch = 1;
    }
    const mark = this.visitMark;
    const visit = this.visitEpoch;
    const candidates = new Heap(true);
    const found = new Heap(false);
    const fresh = this.idsView;
    mark[start] = visit;
    candidates.push(startScore, start);
    found.push(startScore, start);
    while (candidates.size > 0) {
      const node = candidates.pop();
      const score = candidates.poppedScore;
      if (found.size >= ef && score < found.peekScore()) break;
      const neighbours = this.links[node][layer];
      let count = 0;
      for (let i = 0; i < neighbours.length; i++) {
        const next = neighbours[i];
        if (mark[next] === visit) continue;
        mark[next] = visit;
        fresh[count++] = next;
      }
      if (count === 0) continue;
      this.kernel.gather(0, this.idsAt, count, this.rowBytes, at, this.outAt);
      const scores = this.outView;
      for (let i = 0; i < count; i++) {
        const s = scores[i];
        if (found.size < ef || s > found.peekScore()) {
          candidates.push(s, fresh[i]);
          found.push(s, fresh[i]);
          if (found.size > ef) found.pop();
        }
      }
    }
    return found;
  }

  /**
   * The heuristic of the HNSW paper: a candidate is kept unless a kept neighbour is closer to it than the
   * node is; the nearest rejected ones fill up what is left, since fewer links than `max` only hurt recall.
   */
  private selectNeighbours(nodes: ArrayLike<number>, scores: ArrayLike<number>, count: number, max: number): number[] {
    const order = Array.from({ length: count }, (_, i) => ({ node: nodes[i], score: scores[i] })).sort((a, b) => b.score - a.score);
    const kept: number[] = [];
    const rejected: number[] = [];
    for (const { node, score } of order) {
      if (kept.length >= max) break;
      const toKept = this.score(node * this.rowBytes, kept, kept.length);
      let diverse = true;
      for (let i = 0; i < kept.length && diverse; i++) diverse = toKept[i] < score;
      (diverse ? kept : rejected).push(node);
    }
    for (let i = 0; i < rejected.length && kept.length < max; i++) kept.push(rejected[i]);
    return kept;
  }

  /**
   * Adds `node` to `other`'s links on a layer. Links may grow to half as many again as `max`; past that they
   * are selected back to `max` by the heuristic (which keeps the long links that join clusters): the
   * selection runs once per `max / 2` additions instead of at every one.
   */
  private connect(other: number, node: number, layer: number, max: number): void {
    const current = this.links[other][layer];
    if (current.length < max + (max >> 1)) {
      const grown = new Int32Array(current.length + 1);
      grown.set(current);
      grown[current.length] = node;
      this.links[other][layer] = grown;
      return;
    }
    const pool = [...current, node];
    const scores = Array.from(this.score(other * this.rowBytes, pool, pool.length).subarray(0, pool.length));
    this.links[other][layer] = Int32Array.from(this.selectNeighbours(pool, scores, pool.length, max));
  }
}
