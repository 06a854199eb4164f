/**
 * The merge subsystem (docs/architecture.md §5.5): a document's extractions merged into the graph, its records'
 * descriptions summarised and their vectors written. Modules outside this folder import this entry only.
 */
export { embedRecordsNow, type MergeStageOptions, mergeIntoGraph, refreshCarriedVectors, settleEmbeddingRefreshes } from './merge-stage';
export { type Contribution, type MergeOutcome } from './merge';
export { entitiesAdded, type SummaryJob } from './merge-outcome';
export { summaryPolicy, type SummaryPolicy } from './summary';
export { forgetDocumentNames, forgetNamesOf } from './aliases';
export { type DocumentCounts, writeChunkLinks, writeLinked } from './chunk-links';
export { remergeDocuments } from './remerge';
