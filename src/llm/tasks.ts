/**
 * What a prompt asks for. Real providers ignore it; the mock provider uses it to answer in the right format.
 */
export type PromptTask = 'extract' | 'glean' | 'keywords' | 'summarize' | 'community_report' | 'answer' | 'chat' | 'resolve';
