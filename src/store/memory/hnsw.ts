/**
 * An approximate nearest-neighbour index (HNSW: hierarchical navigable small-world graphs) over normalised
 * vectors, where similarity is the dot product. Nodes are added one at a time; a deleted or replaced point
 * leaves a tombstone that searches pass through but never return, and the index is rebuilt from its live
 * nodes once tombstones are a third of it. Written here rather than taken from a native addon: it needs no
 * build step (npm skips install scripts of dependencies) and shares the process's memory accounting.
 * Measured by scripts/bench/ann.ts: on 40,000 mock embeddings of synthetic text, 3.9 ms p50 against 9.8 ms
 * for the exact scan, recall@10 0.93 (the mock's hashing vectors are close to random, the hardest case for
 * graph indexes); on low-dimensional data, like real text embeddings, recall@10 is above 0.98 (its test).
 * Building costs about 2.5 ms per point at 256 dimensions.
 */

export interface HnswOptions {
  /** Links per node on the upper layers (twice as many on layer 0). */
  m: number;
  /** Candidates kept while linking a new node. */
  efConstruction: number;
  /** Candidates kept while searching, at least k. */
  efSearch: number;
}

export const DEFAULT_HNSW: HnswOptions = { m: 16, efConstruction: 120, efSearch: 128 };

/** A binary heap of (score, node) ordered by `higherFirst`. */
class Heap {
  scores: number[] = [];
  nodes: number[] = [];

  constructor(private readonly higherFirst: boolean) {}

  get size(): number {
    return this.nodes.length;
  }

  peekScore(): number {
    return this.scores[0];
  }

  push(score: number, node: number): void {
    this.scores.push(score);
    this.nodes.push(node);
    let i = this.nodes.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  pop(): [number, number] {
    const top: [number, number] = [this.scores[0], this.nodes[0]];
    const lastScore = this.scores.pop() as number;
    const lastNode = this.nodes.pop() as number;
    if (this.nodes.length > 0) {
      this.scores[0] = lastScore;
      this.nodes[0] = lastNode;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let best = i;
        if (l < this.nodes.length && this.before(l, best)) best = l;
        if (r < this.nodes.length && this.before(r, best)) best = r;
        if (best === i) break;
        this.swap(i, best);
        i = best;
      }
    }
    return top;
  }

  private before(a: number, b: number): boolean {
    return this.higherFirst ? this.scores[a] > this.scores[b] : this.scores[a] < this.scores[b];
  }

  private swap(a: number, b: number): void {
    [this.scores[a], this.scores[b]] = [this.scores[b], this.scores[a]];
    [this.nodes[a], this.nodes[b]] = [this.nodes[b], this.nodes[a]];
  }
}

export class HnswIndex {
  private vectors: Float32Array;
  private readonly ids: string[] = [];
  private readonly levels: number[] = [];
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
    this.vectors = new Float32Array(1024 * stride);
    this.levelFactor = 1 / Math.log(options.m);
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
    this.levels.push(level);
    this.links.push(Array.from({ length: level + 1 }, () => new Int32Array(0)));
    if (this.entry < 0) {
      this.entry = node;
      this.topLevel = level;
      return;
    }
    let current = this.entry;
    let currentScore = this.dot(node, current);
    for (let layer = this.topLevel; layer > level; layer--) [current, currentScore] = this.greedy(node, current, currentScore, layer);
    for (let layer = Math.min(level, this.topLevel); layer >= 0; layer--) {
      const found = this.searchLayer(this.vectors, node * this.stride, current, currentScore, this.options.efConstruction, layer);
      const max = layer === 0 ? 2 * this.options.m : this.options.m;
      const chosen = this.selectNeighbours(found, max);
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
    let current = this.entry;
    let currentScore = this.dotWith(query, 0, current);
    for (let layer = this.topLevel; layer > 0; layer--) [current, currentScore] = this.greedyWith(query, current, currentScore, layer);
    const found = this.searchLayer(query, 0, current, currentScore, Math.max(this.options.efSearch, k), 0);
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

  private reserve(nodes: number): void {
    if (nodes * this.stride <= this.vectors.length) return;
    const grown = new Float32Array(Math.max(nodes * this.stride, this.vectors.length * 2));
    grown.set(this.vectors);
    this.vectors = grown;
  }

  private dot(a: number, b: number): number {
    return this.dotWith(this.vectors, a * this.stride, b);
  }

  private dotWith(query: Float32Array, offset: number, node: number): number {
    const v = this.vectors;
    const stride = this.stride;
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    for (let i = 0, p = node * stride, q = offset; i < stride; i += 4, p += 4, q += 4) {
      s0 += v[p] * query[q];
      s1 += v[p + 1] * query[q + 1];
      s2 += v[p + 2] * query[q + 2];
      s3 += v[p + 3] * query[q + 3];
    }
    return s0 + s1 + s2 + s3;
  }

  private greedy(node: number, start: number, startScore: number, layer: number): [number, number] {
    return this.greedyWith(this.vectors, start, startScore, layer, node * this.stride);
  }

  /** Moves to the best neighbour while one is better. */
  private greedyWith(query: Float32Array, start: number, startScore: number, layer: number, offset = 0): [number, number] {
    let current = start;
    let best = startScore;
    for (let improved = true; improved;) {
      improved = false;
      const neighbours = this.links[current][layer];
      for (let i = 0; i < neighbours.length; i++) {
        const score = this.dotWith(query, offset, neighbours[i]);
        if (score > best) {
          best = score;
          current = neighbours[i];
          improved = true;
        }
      }
    }
    return [current, best];
  }

  /** The `ef` best nodes reachable from `start` on a layer (a min-heap: worst first). */
  private searchLayer(query: Float32Array, offset: number, start: number, startScore: number, ef: number, layer: number): Heap {
    if (this.visitMark.length < this.ids.length) this.visitMark = new Uint32Array(Math.max(this.ids.length, this.visitMark.length * 2));
    const epoch = ++this.visitEpoch;
    if (epoch === 0xffffffff) {
      this.visitMark.fill(0);
      this.visitEpoch = 1;
    }
    const mark = this.visitMark;
    const candidates = new Heap(true);
    const found = new Heap(false);
    mark[start] = this.visitEpoch;
    candidates.push(startScore, start);
    found.push(startScore, start);
    while (candidates.size > 0) {
      const [score, node] = candidates.pop();
      if (found.size >= ef && score < found.peekScore()) break;
      const neighbours = this.links[node][layer];
      for (let i = 0; i < neighbours.length; i++) {
        const next = neighbours[i];
        if (mark[next] === this.visitEpoch) continue;
        mark[next] = this.visitEpoch;
        const s = this.dotWith(query, offset, next);
        if (found.size < ef || s > found.peekScore()) {
          candidates.push(s, next);
          found.push(s, next);
          if (found.size > ef) found.pop();
        }
      }
    }
    return found;
  }

  /** The heuristic of the HNSW paper: a candidate is kept unless a kept neighbour is closer to it than the node. */
  private selectNeighbours(found: Heap, max: number): number[] {
    const order = found.nodes.map((node, i) => ({ node, score: found.scores[i] })).sort((a, b) => b.score - a.score);
    const kept: number[] = [];
    for (const { node, score } of order) {
      if (kept.length >= max) break;
      if (kept.every((k) => this.dot(k, node) < score)) kept.push(node);
    }
    // Fill up with the nearest rejected ones: fewer links than `max` only hurt recall.
    for (const { node } of order) {
      if (kept.length >= max) break;
      if (!kept.includes(node)) kept.push(node);
    }
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
    const pool = new Heap(false);
    for (const n of current) pool.push(this.dot(other, n), n);
    pool.push(this.dot(other, node), node);
    this.links[other][layer] = Int32Array.from(this.selectNeighbours(pool, max));
  }
}
