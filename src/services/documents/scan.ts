import { ForbiddenError, InvalidInputError, NotFoundError } from '../../domain/errors';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Scope } from '../../domain/types';
import { extensionOf, type IngestRequest, supportedExtensions } from './admission';
import { type BatchResult, type FileSource, ingestFiles } from './batch';
import type { CommitDeps } from './commit';

export interface ScanInput {
  path: string;
  recursive: boolean;
  extensions?: string[];
  max_files: number;
}

export interface ScanResult extends BatchResult {
  path: string;
  /** Regular files seen under the path (followed links included). */
  files_found: number;
  /** Files seen but not ingested: other extensions, links leading outside the roots, or beyond max_files. */
  skipped: number;
}

/**
 * Ingests the files of a server directory, queued as tasks. Only paths under the configured scan roots are
 * readable: the request path and every followed link are resolved to real paths and checked against the roots.
 */
export async function scanDirectory(deps: CommitDeps, scope: Scope, input: ScanInput, request: IngestRequest): Promise<ScanResult> {
  const roots = deps.host.config.ingest.scanRoots;
  if (roots.length === 0) {
    throw new ForbiddenError('directory scanning is disabled: no scan roots are configured (set SERVICE_SCAN_ROOTS)');
  }
  if (!path.isAbsolute(input.path)) throw new InvalidInputError([{ field: 'path', message: 'must be an absolute path' }]);
  const realRoots = (await Promise.all(roots.map((r) => fs.realpath(r).catch(() => null)))).filter((r): r is string => r !== null);
  const lexical = path.resolve(input.path);
  // Checked before touching the file system, so paths outside the roots reveal nothing about existence.
  if (!isInside(lexical, [...roots, ...realRoots])) throw new ForbiddenError(`path '${input.path}' is outside the configured scan roots`);
  const real = await fs.realpath(lexical).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT' || err.code === 'ENOTDIR') throw new NotFoundError(`path '${input.path}' does not exist`);
    throw err;
  });
  if (!isInside(real, realRoots)) throw new ForbiddenError(`path '${input.path}' resolves outside the configured scan roots`);
  if (!(await fs.stat(real)).isDirectory()) throw new InvalidInputError([{ field: 'path', message: 'must be a directory' }]);

  const wanted = wantedExtensions(input.extensions);
  const found = await listFiles(real, input.recursive, realRoots);
  const eligible = found.files.filter((f) => wanted.has(extensionOf(f.real)));
  const sources: FileSource[] = eligible.slice(0, input.max_files).map((f) => ({
    filename: path.relative(real, f.shown) || path.basename(f.shown),
    size: f.size,
    filePath: f.shown,
    read: () => fs.readFile(f.real),
  }));
  const batch = await ingestFiles(deps, scope, sources, { ...request, asyncProcessing: true });
  const filesFound = found.files.length + found.escaped;
  return { path: input.path, files_found: filesFound, ...batch, skipped: filesFound - sources.length };
}

/** Requested extensions (with or without the dot) among the supported ones; all supported when none given. */
function wantedExtensions(requested: string[] | undefined): Set<string> {
  const supported = supportedExtensions();
  if (!requested || requested.length === 0) return new Set(supported);
  const normalized = requested.map((e) => (e.startsWith('.') ? e : `.${e}`).toLowerCase());
  return new Set(normalized.filter((e) => supported.includes(e)));
}

interface FoundFile {
  /** The path under the scanned directory, as the user knows it. */
  shown: string;
  real: string;
  size: number;
}

/** Files in name order; links to files are followed only when they stay inside a root, linked folders never. */
async function listFiles(dir: string, recursive: boolean, roots: string[]): Promise<{ files: FoundFile[]; escaped: number }> {
  const files: FoundFile[] = [];
  let escaped = 0;
  const walk = async (current: string): Promise<void> => {
    const entries = (await fs.readdir(current, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      const shown = path.join(current, entry.name);
      if (entry.isDirectory()) {
        if (recursive) await walk(shown);
      } else if (entry.isFile()) {
        files.push({ shown, real: shown, size: (await fs.stat(shown)).size });
      } else if (entry.isSymbolicLink()) {
        const real = await fs.realpath(shown).catch(() => null);
        if (!real) continue;
        const stat = await fs.stat(real);
        if (!stat.isFile()) continue;
        if (isInside(real, roots)) files.push({ shown, real, size: stat.size });
        else escaped += 1;
      }
    }
  };
  await walk(dir);
  return { files, escaped };
}

function isInside(candidate: string, roots: string[]): boolean {
  return roots.some((root) => candidate === root || candidate.startsWith(root.endsWith(path.sep) ? root : root + path.sep));
}
