/** A binary heap of (score, node) ordered by `higherFirst`. */
export class Heap {
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
