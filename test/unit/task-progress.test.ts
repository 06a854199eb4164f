import type { TaskRecord } from '../../src/domain/types';
import { TaskProgress } from '../../src/services/tasks/progress';
import type { TaskStore } from '../../src/store/ports';

/** A task store whose writes finish only when the test lets them. */
function slowStore() {
  const writes: Array<Partial<TaskRecord>> = [];
  const pending: Array<() => void> = [];
  const store = {
    update: (_scope: unknown, _id: string, patch: Partial<TaskRecord>) => {
      writes.push(patch);
      return new Promise<null>((resolve) => pending.push(() => resolve(null)));
    },
  } as unknown as TaskStore;
  const finishOne = async () => {
    pending.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { store, writes, pending, finishOne };
}

describe('task progress', () => {
  test('stage transitions reported while a write is under way are written once, as the latest state', async () => {
    const { store, writes, finishOne } = slowStore();
    const progress = new TaskProgress(store, { workspaceId: 'ws' }, 'task-1', () => undefined);
    progress.report({ stage: 'chunking', stageStatus: 'running' });
    progress.report({ stage: 'chunking', stageStatus: 'completed' });
    progress.report({ stage: 'extraction', stageStatus: 'running' });
    progress.report({ stage: 'extraction', stageStatus: 'completed' });
    expect(writes).toHaveLength(1);
    expect(writes[0].stages).toMatchObject({ chunking: 'running', extraction: 'pending' });

    await finishOne();
    expect(writes).toHaveLength(2);
    expect(writes[1].stages).toMatchObject({ chunking: 'completed', extraction: 'completed', merging: 'pending' });
    expect(writes[1].progress).toBe(50);
    await finishOne();
    expect(writes).toHaveLength(2);
  });

  test('stop waits for the write under way and drops what was waiting behind it', async () => {
    const { store, writes, finishOne } = slowStore();
    const progress = new TaskProgress(store, { workspaceId: 'ws' }, 'task-1', () => undefined);
    progress.report({ stage: 'merging', stageStatus: 'running' });
    progress.report({ stage: 'merging', stageStatus: 'completed' });
    let stopped = false;
    const stopping = progress.stop().then(() => (stopped = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    await finishOne();
    await stopping;
    expect(writes).toHaveLength(1);
    expect(progress.snapshot().stages.merging).toBe('completed');
  });
});
