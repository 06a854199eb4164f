import { createHash } from 'node:crypto';
import type { Scope, VectorKind } from '../../domain/types';

/** The RFC 4122 URL namespace: point ids are name-based UUIDs (version 5) under it. */
const NAMESPACE = Buffer.from('6ba7b8119dad11d180b400c04fd430c8', 'hex');

/** A version-5 UUID of `name`: SHA-1 of namespace and name, with the version and variant bits set. */
export function uuidV5(name: string): string {
  const hash = createHash('sha1').update(NAMESPACE).update(name, 'utf8').digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Point ids hashed lately: a query filters on the ids of some 80 candidate chunks, often the same ones from one
 * question to the next. Bounded; the oldest go first.
 */
const recent = new Map<string, string>();
const RECENT_POINTS = 50_000;

/**
 * Deterministic Qdrant point id of a record's vector: the same record always maps to the same point, so upserts
 * replace. Tenants prefix the name, so equal workspace ids under two tenants never share a point.
 */
export function pointId(scope: Scope, kind: VectorKind, id: string): string {
  const workspace = scope.tenantId ? `${scope.tenantId}/${scope.workspaceId}` : scope.workspaceId;
  const name = `${workspace}/${kind}/${id}`;
  let point = recent.get(name);
  if (point === undefined) {
    point = uuidV5(name);
    if (recent.size >= RECENT_POINTS) recent.delete(recent.keys().next().value as string);
    recent.set(name, point);
  }
  return point;
}
