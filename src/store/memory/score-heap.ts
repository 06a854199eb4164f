/**
 * A binary heap of (score, node) ordered by `higherFirst`, on typed arrays that grow by doubling: pushing and
 * popping allocate nothing.
 */
export class Heap {
  scores = new Float64Array(64);
  nodes = new Int32Array(64);
  size = 0;
  /** The score of the node the last `pop` returned. */
  poppedScore = 0;

  constructor(private readonly higherFirst: boolean) {}

  peekScore(): number {
    return this.scores[0];
  }

  push(score: number, node: number): void {
    if (this.size === this.nodes.length) this.grow();
    const { scores, nodes } = this;
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(score, scores[parent])) break;
      scores[i] = scores[parent];
      nodes[i] = nodes[parent];
      i = parent;
    }
    scores[i] = score;
    nodes[i] = node;
  }

  /** Removes the top node and returns it; its score is left in `poppedScore`. */
  pop(): number {
    const { scores, nodes } = this;
    const top = nodes[0];
    this.poppedScore = scores[0];
    const size = --this.size;
    if (size > 0) {
      const score = scores[size];
      const node = nodes[size];
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= size) break;
        const r = l + 1;
        const best = r < size && this.before(scores[r], scores[l]) ? r : l;
        if (!this.before(scores[best], score)) break;
        scores[i] = scores[best];
        nodes[i] = nodes[best];
        i = best;
      }
      scores[i] = score;
      nodes[i] = node;
    }
    return top;
  }

  private before(a: number, b: number): boolean {
    return this.higherFirst ? a > b : a < b;
  }

  private grow(): void {
    const scores = new Float64Array(this.nodes.length * 2);
    const nodes = new Int32Array(this.nodes.length * 2);
    scores.set(this.scores);
    nodes.set(this.nodes);
    this.scores = scores;
    this.nodes = nodes;
  }
}
