import { drawDiscNodeHover, drawDiscNodeLabel } from 'sigma/rendering';
import type { Settings } from 'sigma/settings';
import type { NodeDisplayData, PartialButFor } from 'sigma/types';
import type { EdgeAttributes, NodeAttributes } from './model';

type LabelData = PartialButFor<NodeDisplayData, 'x' | 'y' | 'size' | 'label' | 'color'> & { key?: string };

/** A label as drawn: its box in viewport pixels. */
export interface LabelBox {
  node: string;
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/**
 * Collision-aware labels. Sigma picks the labels to draw per grid cell, but labels of neighbouring cells, and the
 * forced labels of new or expanded nodes, can still cover one another. The placer takes the labels sigma asks for
 * during a render and draws them once the render is over: forced ones first, then by node size, each only where it
 * overlaps no label already placed.
 */
export class LabelPlacer {
  private queue: Array<{ context: CanvasRenderingContext2D; data: LabelData; settings: Settings<NodeAttributes, EdgeAttributes> }> = [];
  /** The boxes of the labels drawn by the last render. */
  boxes: LabelBox[] = [];

  /** Sigma's `defaultDrawNodeLabel`: queues the label. */
  readonly collect = (context: CanvasRenderingContext2D, data: LabelData, settings: Settings<NodeAttributes, EdgeAttributes>): void => {
    if (data.label) this.queue.push({ context, data, settings });
  };

  /** Draws the queued labels that fit (on sigma's `afterRender`). */
  flush(): void {
    const queue = this.queue;
    this.queue = [];
    queue.sort(
      (a, b) =>
        Number(Boolean(b.data.forceLabel)) - Number(Boolean(a.data.forceLabel)) ||
        b.data.size - a.data.size ||
        String(a.data.key).localeCompare(String(b.data.key)),
    );
    const placed: LabelBox[] = [];
    for (const { context, data, settings } of queue) {
      const size = settings.labelSize;
      context.font = `${settings.labelWeight} ${size}px ${settings.labelFont}`;
      const left = data.x + data.size + 3;
      const box = {
        node: String(data.key),
        left: left - 1,
        right: left + context.measureText(data.label!).width + 1,
        top: data.y + size / 3 - size,
        bottom: data.y + size / 3 + size * 0.25,
      };
      if (placed.some((p) => p.left < box.right && box.left < p.right && p.top < box.bottom && box.top < p.bottom)) continue;
      placed.push(box);
      drawDiscNodeLabel(context, data, settings);
    }
    this.boxes = placed;
  }
}

/**
 * Sigma's `defaultDrawNodeHover` for highlighted nodes: the node under the pointer and `boxed` ones get sigma's
 * label box; the others (new or expanded nodes) only a ring, their labels being placed with the rest.
 */
export function ringOrBox(boxed: (node: string) => boolean) {
  return (context: CanvasRenderingContext2D, data: LabelData, settings: Settings<NodeAttributes, EdgeAttributes>): void => {
    if (boxed(String(data.key))) {
      drawDiscNodeHover(context, data, settings);
      return;
    }
    context.beginPath();
    context.arc(data.x, data.y, data.size + 2.5, 0, Math.PI * 2);
    context.lineWidth = 2;
    context.strokeStyle = '#3259d6';
    context.stroke();
  };
}
