import { EventEmitter } from 'node:events';
import type { Scope } from '../domain/types';

/** A change to a workspace graph, published by ingestion, deletion and entity edits. */
export type GraphChange =
  | { kind: 'node_added' | 'node_updated'; id: string }
  | { kind: 'node_removed'; id: string }
  | { kind: 'edge_added' | 'edge_updated'; id: string; source: string; target: string }
  | { kind: 'edge_removed'; id: string; source: string; target: string };

export interface GraphChangeBatch {
  scope: Scope;
  changes: GraphChange[];
  /** What caused the change, e.g. `ingest`, `delete`, `merge`. */
  cause: string;
  document_id?: string;
}

/** In-process bus: the graph stream subscribes, writers publish after their store writes commit. */
export class GraphEvents {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  publish(batch: GraphChangeBatch): void {
    if (batch.changes.length) this.emitter.emit('change', batch);
  }

  subscribe(listener: (batch: GraphChangeBatch) => void): () => void {
    this.emitter.on('change', listener);
    return () => this.emitter.off('change', listener);
  }

  /** Live subscriptions (the graph stream must leave none behind when its client goes away). */
  listenerCount(): number {
    return this.emitter.listenerCount('change');
  }
}
