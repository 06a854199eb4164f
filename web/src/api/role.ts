import { useEffect, useState } from 'react';
import { getJson } from './client';
import { onSessionChange } from './session';

type Role = 'viewer' | 'editor' | 'admin';

let asked: Promise<Role | null> | null = null;

/** The caller's role from `/auth/me` (asked once per session); null when the server does not say. */
function callerRole(): Promise<Role | null> {
  asked ??= getJson<{ role?: Role }>('/api/v1/auth/me')
    .then((me) => me.role ?? null)
    .catch(() => null);
  return asked;
}

onSessionChange(() => (asked = null));

/**
 * Whether the caller may change the graph (editor and above): null until the role is known. A viewer is offered no
 * edit; a server that does not say who the caller is (no `/auth/me`) leaves the decision to its answers.
 */
export function useCanEdit(): boolean | null {
  const [role, setRole] = useState<Role | null | undefined>(undefined);
  useEffect(() => {
    let live = true;
    const load = () => void callerRole().then((r) => live && setRole(r));
    load();
    const off = onSessionChange(load);
    return () => {
      live = false;
      off();
    };
  }, []);
  if (role === undefined) return null;
  return role === 'editor' || role === 'admin' || role === null;
}
