import type { VectorHit } from '../../domain/types';
import { compareIds } from './records';

/**
 * A min-heap of the best k (score, row) pairs seen: the root is the worst kept, so most candidates are refused
 * with one comparison. Equal scores rank by id so results are deterministic.
 */
export class TopK {
  private readonly scores: Float64Array;
  private readonly rows: Int32Array;
  private size = 0;

  constructor(private readonly k: number) {
    this.scores = new Float64Array(Math.max(0, k));
    this.rows = new Int32Array(Math.max(0, k));
  }

  offer(score: number, row: number, ids: readonly string[]): void {
    if (this.k <= 0) return;
    if (this.size < this.k) {
      this.scores[this.size] = score;
      this.rows[this.size] = row;
      this.siftUp(this.size++, ids);
    } else if (score > this.scores[0] || (score === this.scores[0] && ids[row] < ids[this.rows[0]])) {
      this.scores[0] = score;
      this.rows[0] = row;
      this.siftDown(0, ids);
    }
  }

  /** Best first. */
  drain(ids: readonly string[]): VectorHit[] {
    const hits: VectorHit[] = [];
    for (let i = 0; i < this.size; i++) hits.push({ id: ids[this.rows[i]], score: this.scores[i] });
    return hits.sort((a, b) => b.score - a.score || compareIds(a.id, b.id));
  }

  /** True when slot a ranks below slot b. */
  private worse(a: number, b: number, ids: readonly string[]): boolean {
    const sa = this.scores[a];
    const sb = this.scores[b];
    return sa < sb || (sa === sb && ids[this.rows[a]] > ids[this.rows[b]]);
  }

  private swap(a: number, b: number): void {
    const s = this.scores[a];
    this.scores[a] = this.scores[b];
    this.scores[b] = s;
    const r = this.rows[a];
    this.rows[a] = this.rows[b];
    this.rows[b] = r;
  }

  private siftUp(i: number, ids: readonly string[]): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.worse(i, parent, ids)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private siftDown(i: number, ids: readonly string[]): void {
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let worst = i;
      if (left < this.size && this.worse(left, worst, ids)) worst = left;
      if (right < this.size && this.worse(right, worst, ids)) worst = right;
      if (worst === i) return;
      this.swap(i, worst);
      i = worst;
    }
  }
}
