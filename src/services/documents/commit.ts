import type { DocumentRecord, Scope } from '../../domain/types';
import { deleteDocumentData } from '../../ingest/deletion';
import { savePageMap } from '../../ingest/pipeline';
import type { RunReport, ServiceHost, TaskService } from '../tasks';
import type { Admission } from './admission';
import type { AdmissionGate } from './gate';

/** The outcome of storing an admitted document: queued, or processed within the request. */
export type CreateOutcome =
  { kind: 'queued'; doc: DocumentRecord; taskId: string } | { kind: 'processed'; doc: DocumentRecord; report: RunReport };

export interface CommitDeps {
  host: ServiceHost;
  tasks: TaskService;
  gate: AdmissionGate;
}

/**
 * Writes an admitted document: the record, its page map (PDF) and, when queued, its task. A failure between
 * these writes removes what was written for the document, so a refused or failed admission leaves nothing.
 */
export async function storeAdmission(deps: CommitDeps, scope: Scope, admission: Admission): Promise<void> {
  const { host, tasks, gate } = deps;
  const { doc } = admission;
  let inserted = false;
  try {
    await host.stores.documents.insert(scope, doc);
    inserted = true;
    if (admission.pages) await savePageMap(host, scope, doc.id, admission.pages);
    if (admission.queue) await tasks.enqueue(scope, doc.id, 'full', { taskId: doc.task_id! });
  } catch (err) {
    if (inserted) await rollback(host, scope, doc.id);
    throw err;
  } finally {
    gate.release(scope, doc.content_hash, doc.id);
  }
}

/** Stores the document and either queues it or runs the pipeline now, answering with the stored result. */
export async function commitAdmission(deps: CommitDeps, scope: Scope, admission: Admission): Promise<CreateOutcome> {
  await storeAdmission(deps, scope, admission);
  return runStored(deps, scope, admission);
}

/** After storeAdmission: the queued result, or the synchronous run and the document it left. */
export async function runStored(deps: CommitDeps, scope: Scope, admission: Admission): Promise<CreateOutcome> {
  const { doc } = admission;
  if (admission.queue) return { kind: 'queued', doc, taskId: doc.task_id! };
  let report: RunReport;
  try {
    report = await deps.tasks.runNow(scope, doc.id, doc.task_id!);
  } catch (err) {
    await rollback(deps.host, scope, doc.id);
    throw err;
  }
  const stored = await deps.host.stores.documents.get(scope, doc.id);
  return { kind: 'processed', doc: stored ?? doc, report };
}

async function rollback(host: ServiceHost, scope: Scope, documentId: string): Promise<void> {
  try {
    await deleteDocumentData(host, scope, documentId);
    await host.stores.documents.delete(scope, documentId);
  } catch (err) {
    host.log.error({ err, documentId }, 'rollback of a partly stored document failed');
  }
}
