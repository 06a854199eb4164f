import { RateLimitedError, UnavailableError } from '../../domain/errors';
import type { Scope } from '../../domain/types';
import type { ServiceHost } from '../tasks';

/** What a refusal's `Retry-After` says: long enough for a worker to finish a few documents. */
const RETRY_AFTER_SECONDS = 5;

/**
 * Bounded ingestion queue (docs/api.md §8.3): an upload that would take the documents waiting for processing (open
 * tasks: pending and running) past the instance's cap is refused with 503, past its workspace's cap with 429, both
 * with `Retry-After`, so that a flood of uploads costs a quick refusal instead of a queue that grows without limit.
 * The counts come from the task store, so they hold across instances and restarts.
 */
export async function checkBacklog(host: ServiceHost, scope: Scope, adding: number): Promise<void> {
  const { queuedDocuments, queuedDocumentsPerWorkspace } = host.config.admission;
  if (queuedDocuments > 0) {
    const total = await host.stores.tasks.countOpen(null);
    if (total + adding > queuedDocuments) {
      throw new UnavailableError(
        `the service has ${total} documents waiting for processing and queues at most ${queuedDocuments}; retry later`,
        'queue',
        {},
        RETRY_AFTER_SECONDS,
      );
    }
  }
  if (queuedDocumentsPerWorkspace > 0) {
    const waiting = await host.stores.tasks.countOpen(scope);
    if (waiting + adding > queuedDocumentsPerWorkspace) {
      throw new RateLimitedError(
        `this workspace has ${waiting} documents waiting for processing and may queue at most ${queuedDocumentsPerWorkspace}; retry later`,
        RETRY_AFTER_SECONDS,
      );
    }
  }
}
