import v8 from 'node:v8';

/**
 * V8 heap growth for a long-running service. Ingestion allocates fast and briefly (prompts, parses, token
 * layouts) while what it keeps is small, and V8's default growth then lets the heap double before it
 * collects: the process peaked at about 450 MB ingesting 100 documents whose live data was under 100 MB.
 * Growing the heap by 20 % at a time keeps the peak near 250 MB for about the same CPU. A flag given on the
 * command line or in NODE_OPTIONS wins.
 */
export const HEAP_GROWING_PERCENT = 20;

export function tuneHeap(given: string[]): void {
  if (given.some((arg) => arg.startsWith('--heap-growing-percent'))) return;
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
