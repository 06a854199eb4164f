/**
 * The service as `node dist/main.js` runs it, for benches that start instances as processes of their own
 * (`node --import tsx scripts/bench/instance.ts`): stack traces without the source maps tsx turns on, which the
 * Neo4j driver would pay for on every statement. src/main.ts tunes the heap itself.
 */
process.setSourceMapsEnabled(false);
void import('../../src/main');
