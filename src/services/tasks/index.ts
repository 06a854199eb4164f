export { createTaskService } from './service';
export type { PipelineStatus, QueueMetrics, TaskActionResult, TaskService } from './service';
export type { RunReport } from './queue';
export { CANCELLED_REASON, type ServiceHost, type TaskMode } from './records';
