import type { StageName, StageStatus, TaskStats } from '../../domain/types';
import type { Logger } from '../../logger';

export type StageReporter = (update: {
  stage?: StageName;
  stageStatus?: StageStatus;
  progress?: number;
  stats?: Partial<TaskStats>;
}) => void | Promise<void>;

/** Where each stage's progress lies in the 0-100 range of the whole run. */
export const STAGE_SPAN: Record<StageName, [number, number]> = {
  chunking: [0, 10],
  extraction: [10, 80],
  merging: [80, 90],
  embedding: [90, 100],
};

/**
 * Progress of one run: integer percent that never goes back, and stats. Updates are sent when the percent
 * or the stats change; a reporter that fails is logged, never allowed to fail the run.
 */
export class ProgressTracker {
  private percent = 0;
  readonly stats: TaskStats = { chunks_processed: 0, chunks_total: 0, entities_found: 0, relationships_found: 0 };
  private sentStats = '';

  constructor(
    private readonly report: StageReporter | undefined,
    private readonly log: Logger,
  ) {}

  async stage(stage: StageName, stageStatus: StageStatus): Promise<void> {
    const [start, end] = STAGE_SPAN[stage];
    this.percent = Math.max(this.percent, stageStatus === 'completed' ? end : start);
    await this.send({ stage, stageStatus, progress: this.percent, stats: { ...this.stats } });
  }

  /** `fraction` (0-1) of the stage done. */
  async within(stage: StageName, fraction: number): Promise<void> {
    const [start, end] = STAGE_SPAN[stage];
    const percent = Math.max(this.percent, Math.floor(start + (end - start) * Math.min(1, Math.max(0, fraction))));
    const stats = JSON.stringify(this.stats);
    if (percent === this.percent && stats === this.sentStats) return;
    this.percent = percent;
    await this.send({ progress: percent, stats: { ...this.stats } });
  }

  private async send(update: Parameters<StageReporter>[0]): Promise<void> {
    this.sentStats = JSON.stringify(this.stats);
    if (!this.report) return;
    try {
      await this.report(update);
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'progress report failed');
    }
  }
}
