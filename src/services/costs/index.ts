export { type CostService, type CostSummary, type BudgetAlert, type BudgetPatch, createCostService } from './service';
export type { BudgetStatus } from './budget';
export { type Granularity, MAX_BUCKETS } from './history';
