import { STAGES, type Scope, type StageName, type StageStatus, type TaskRecord, type TaskStats } from '../../domain/types';
import { emptyStats, pendingStages } from './records';
import type { TaskStore } from '../../store/ports';

/** What the ingestion pipeline reports while it runs (the pipeline's StageReporter payload). */
export interface StageUpdate {
  stage?: StageName;
  stageStatus?: StageStatus;
  progress?: number;
  stats?: Partial<TaskStats>;
}

/** Minimum spacing of progress writes; stage transitions are written at once. */
const WRITE_INTERVAL_MS = 250;

/**
 * The live view of one run of a task, starting from nothing (a run always goes through every stage): applies
 * pipeline reports and persists them, throttled, one write at a time, touching only the progress fields so a
 * concurrent cancel of the status is never overwritten.
 */
export class TaskProgress {
  readonly stages = pendingStages();
  readonly stats = emptyStats();
  progress = 0;
  private timer: NodeJS.Timeout | null = null;
  private lastWrite = 0;
  private writes: Promise<void> = Promise.resolve();
  private writing = false;
  private dirty = false;
  private stopped = false;

  constructor(
    private readonly store: TaskStore,
    private readonly scope: Scope,
    private readonly taskId: string,
    private readonly onWriteError: (err: unknown) => void,
  ) {}

  report(update: StageUpdate): void {
    if (this.stopped) return;
    let stageChanged = false;
    if (update.stage && update.stageStatus && this.stages[update.stage] !== update.stageStatus) {
      this.stages[update.stage] = update.stageStatus;
      // A stage starting means every earlier stage is behind us.
      if (update.stageStatus !== 'pending') {
        for (const name of STAGES) {
          if (name === update.stage) break;
          this.stages[name] = 'completed';
        }
      }
      stageChanged = true;
    }
    if (update.stats) Object.assign(this.stats, definedOnly(update.stats));
    const next = update.progress !== undefined ? clampPercent(update.progress) : this.derivedProgress();
    this.progress = Math.max(this.progress, next);
    if (stageChanged) this.flushNow();
    else this.schedule();
  }

  /** Marks every stage completed and progress 100 (the caller writes the final record). */
  complete(): void {
    for (const name of STAGES) this.stages[name] = 'completed';
    this.progress = 100;
  }

  /** Stops further writes and waits for the ones under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.writes;
  }

  snapshot(): Pick<TaskRecord, 'stages' | 'stats' | 'progress'> {
    return { stages: { ...this.stages }, stats: { ...this.stats }, progress: this.progress };
  }

  /** Each finished stage is a quarter; extraction advances with the chunks it has processed. */
  private derivedProgress(): number {
    let done = 0;
    for (const name of STAGES) {
      if (this.stages[name] === 'completed') done += 25;
      else if (name === 'extraction' && this.stages[name] === 'running' && this.stats.chunks_total > 0) {
        done += Math.floor((25 * this.stats.chunks_processed) / this.stats.chunks_total);
      }
    }
    return Math.min(done, 99);
  }

  private schedule(): void {
    if (this.timer) return;
    const wait = Math.max(0, this.lastWrite + WRITE_INTERVAL_MS - Date.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flushNow();
    }, wait);
  }

  private flushNow(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.stopped) return;
    // Reports that arrive while a write is under way are written together once it is done, as the latest snapshot:
    // stage transitions in quick succession (one stage completed, the next running) cost one write, not one each.
    if (this.writing) {
      this.dirty = true;
      return;
    }
    this.writing = true;
    this.lastWrite = Date.now();
    const patch = { ...this.snapshot(), updated_at: new Date().toISOString() };
    this.writes = this.store
      .update(this.scope, this.taskId, patch)
      .then(
        () => undefined,
        (err) => this.onWriteError(err),
      )
      .finally(() => {
        this.writing = false;
        if (!this.dirty) return;
        this.dirty = false;
        this.flushNow();
      });
  }
}

function clampPercent(value: number): number {
  return Math.max(0, Math.min(100, Math.round(value)));
}

function definedOnly(stats: Partial<TaskStats>): Partial<TaskStats> {
  return Object.fromEntries(Object.entries(stats).filter(([, v]) => typeof v === 'number')) as Partial<TaskStats>;
}
