import type Sigma from 'sigma';
import type { Attributes } from 'graphology-types';

/** Frame timing of the explorer: render time per sigma frame, and intervals between animation frames on demand. */
export interface FrameSample {
  frames: number;
  /** Intervals between consecutive animation frames, ms. */
  intervalP50: number;
  intervalP95: number;
  intervalMax: number;
  /** Time sigma spent rendering, per rendered frame, ms. */
  renderP50: number;
  renderP95: number;
  renderedFrames: number;
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export class FrameMeter {
  private renders: number[] = [];
  private intervals: number[] = [];
  private renderStart = 0;
  private sampling = false;
  private last = 0;

  attach<N extends Attributes, E extends Attributes>(sigma: Sigma<N, E>): void {
    sigma.on('beforeRender', () => (this.renderStart = performance.now()));
    sigma.on('afterRender', () => {
      if (this.sampling) this.renders.push(performance.now() - this.renderStart);
    });
  }

  start(): void {
    this.renders = [];
    this.intervals = [];
    this.sampling = true;
    this.last = performance.now();
    const tick = (now: number) => {
      if (!this.sampling) return;
      this.intervals.push(now - this.last);
      this.last = now;
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }

  stop(): FrameSample {
    this.sampling = false;
    const intervals = this.intervals.slice(1);
    return {
      frames: intervals.length,
      intervalP50: percentile(intervals, 50),
      intervalP95: percentile(intervals, 95),
      intervalMax: Math.max(0, ...intervals),
      renderP50: percentile(this.renders, 50),
      renderP95: percentile(this.renders, 95),
      renderedFrames: this.renders.length,
    };
  }
}
