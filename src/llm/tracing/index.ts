export { type Tracing, type TracingStatus, startTracing } from './setup';
export { type SpanHandle, annotateSpan, closeSpan, currentSpan, openSpan, runInSpan, withSpan } from './spans';
