/**
 * The integrity check of every workspace (src/services/integrity), or of the workspace ids given as arguments:
 * `node dist/maintenance/verify.js [workspace...]` (or `npm run verify -- [workspace...]`), with the service's own
 * environment (NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD, NEO4J_DATABASE, QDRANT_URL). Prints one line per workspace and the orphans found; exits 1 when there are any, 2 when it cannot
 * run. The service may keep running; the check is exact for workspaces where no task runs.
 */
import { ConfigError, loadConfig } from '../config/load';
import { createLogger } from '../logger';
import { createIntegrityService, ORPHAN_KINDS } from '../services/integrity';
import { createStores } from '../store';

async function main(): Promise<number> {
  const config = loadConfig();
  if (config.storage.mode !== 'neo4j') {
    throw new ConfigError(['NEO4J_URI is not set: embedded stores live inside the service; ask it with GET /api/v1/admin/integrity']);
  }
  const stores = await createStores(config, createLogger('warn'));
  try {
    let total = 0;
    const integrity = createIntegrityService(stores, config.defaultWorkspaceId);
    const named = process.argv.slice(2);
    const reports = named.length ? await Promise.all(named.map((id) => integrity.check({ workspaceId: id }))) : await integrity.checkAll();
    for (const report of reports) {
      total += report.total;
      const { completed, processing, failed } = report.documents;
      const { chunks, entities, relationships } = report.checked;
      process.stdout.write(
        `${report.workspace_id}: ${report.total} orphans (${completed} completed, ${processing} processing, ${failed} failed documents; ` +
          `${chunks} chunks, ${entities} entities, ${relationships} relationships)\n`,
      );
      for (const kind of ORPHAN_KINDS) {
        const group = report.orphans[kind];
        if (group.count > 0) process.stdout.write(`  ${kind}: ${group.count} (${group.ids.join(', ')})\n`);
      }
    }
    return total === 0 ? 0 : 1;
  } finally {
    await stores.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof ConfigError) process.stderr.write(`${err.problems.join('\n')}\n`);
    else process.stderr.write(`verify failed: ${(err as Error).message}\n`);
    process.exit(2);
  },
);
