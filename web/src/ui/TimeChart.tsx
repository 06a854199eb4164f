import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface Series {
  label: string;
  color: string;
  values: number[];
}

/** A small time-series chart (uPlot): x in epoch seconds, one line per series. */
export function TimeChart({
  times,
  series,
  height = 180,
  yLabel,
}: {
  times: number[];
  series: Series[];
  height?: number;
  yLabel?: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const shape = series.map((s) => s.label).join('|');

  useEffect(() => {
    const element = box.current!;
    const options: uPlot.Options = {
      width: element.clientWidth || 600,
      height,
      series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.color, width: 2, fill: `${s.color}22` }))],
      axes: [{}, { label: yLabel, size: 60 }],
      legend: { show: true },
      cursor: { drag: { x: false, y: false } },
    };
    plot.current = new uPlot(options, [times, ...series.map((s) => s.values)], element);
    const resize = new ResizeObserver(() => plot.current?.setSize({ width: element.clientWidth, height }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
    // Rebuilt only when the set of series changes; data updates go through setData below.
  }, [shape, height, yLabel]);

  useEffect(() => {
    plot.current?.setData([times, ...series.map((s) => s.values)]);
  }, [times, series]);

  return <div ref={box} className="chart" />;
}
