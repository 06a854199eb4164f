import fs from 'node:fs';
import path from 'node:path';
import type { Context, Middleware } from 'koa';
import type { AppState } from '../context';

/**
 * Paths that belong to the API, the probes and the docs (`/api*` covers `/api-docs`, `/health*` covers `/healthz`):
 * the console never answers them, not even as a fallback.
 */
const SERVER_PATHS = /^\/+(api|v1|health|ready|live|swagger-ui|mcp|metrics|openapi)/i;

/**
 * The console's policy: its own scripts, styles and API only (Vite builds no inline script or style), images
 * also from data: URLs (the favicon) and blob: URLs (exported pictures), nothing framed, no plugins.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

/** Files under assets/ carry a content hash in their names (Vite), so they never change under one URL. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';

/**
 * The web console as static files: `index.html` (revalidated on every load), hashed assets (cached for a year),
 * and index.html again for any other page path so that client-side routes survive a reload. API, probe and
 * docs paths pass through untouched. When the console is not built, everything passes through.
 */
export function consoleFiles(dir: string): Middleware<AppState> {
  const root = path.resolve(dir);
  return async (ctx, next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || SERVER_PATHS.test(ctx.path)) return next();
    const file = resolveFile(root, ctx.path);
    if (file && (await sendFile(ctx, file, isHashedAsset(root, file) ? IMMUTABLE : REVALIDATE))) return;
    // A page of the console (no file extension) asked for by a browser: the single-page app answers it. A path
    // with an empty segment (`//api/v1/…`) is a mistyped URL, not a page.
    if (!path.extname(ctx.path) && !ctx.path.includes('//') && ctx.accepts('html') === 'html') {
      if (await sendFile(ctx, path.join(root, 'index.html'), REVALIDATE)) return;
    }
    await next();
  };
}

/** The file a URL path names inside root, or null when it would leave root or cannot be decoded. */
function resolveFile(root: string, urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const relative = decoded === '/' ? 'index.html' : decoded.replace(/^\/+/, '');
  const file = path.resolve(root, relative);
  return file.startsWith(root + path.sep) ? file : null;
}

function isHashedAsset(root: string, file: string): boolean {
  return file.startsWith(path.join(root, 'assets') + path.sep);
}

/** Sends a regular file with its type, cache policy and a validator; false when there is no such file. */
async function sendFile(ctx: Context, file: string, cacheControl: string): Promise<boolean> {
  let stat: fs.Stats;
  try {
    stat = await fs.promises.stat(file);
  } catch {
    return false;
  }
  if (!stat.isFile()) return false;
  const etag = `W/"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"`;
  ctx.set('Cache-Control', cacheControl);
  ctx.set('ETag', etag);
  ctx.set('Last-Modified', stat.mtime.toUTCString());
  ctx.type = TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
  if (path.extname(file).toLowerCase() === '.html') ctx.set('Content-Security-Policy', CONSOLE_CSP);
  if (ctx.get('If-None-Match') === etag) {
    ctx.status = 304;
    return true;
  }
  ctx.status = 200;
  ctx.length = stat.size;
  // Koa answers HEAD with the headers alone; a stream opened for it would never be read.
  if (ctx.method === 'GET') ctx.body = fs.createReadStream(file);
  return true;
}
