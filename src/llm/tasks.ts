/**
 * What a prompt asks for. Real providers ignore it; the mock provider uses it to answer in the right format.
 */
export type PromptTask = 'extract' | 'glean' | 'keywords' | 'summarize' | 'community_report' | 'answer' | 'chat' | 'resolve';

/**
 * Where a call of each task waits for a provider slot, higher first (./semaphore.ts): a person waiting on an answer
 * before ingestion; within ingestion, the stages that finish documents already started before the first extraction
 * of new chunks, so that documents complete one after another and their summaries and resolution run while other
 * chunks are extracted, rather than all at the end. Community reports are background work.
 */
export const TASK_RANK: Record<PromptTask, number> = {
  keywords: 3,
  answer: 3,
  chat: 3,
  summarize: 2,
  resolve: 2,
  glean: 1,
  extract: 0,
  community_report: 0,
};

export function taskRank(task: string | undefined): number {
  return TASK_RANK[task as PromptTask] ?? 0;
}
