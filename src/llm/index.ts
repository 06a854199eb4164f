export * from './ports';
export { createProviderRegistry, checkProvider, ProviderDisabledError, type RegistryOptions } from './registry';
export { withResilience, ProviderTimeoutError, isTransient, type ResilienceOptions } from './resilience';
export { type CallSlots, createCallSlots, Semaphore } from './semaphore';
export { type UsageRecorder, type UsageEvent, noopUsageRecorder, runWithUsageContext, currentUsageContext } from './usage';
export { countTokens, countMessageTokens } from './tokens';
export * from './catalog-view';
