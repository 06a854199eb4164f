import { useState } from 'react';
import type { AuthUser, Workspace } from '../api/pending';
import { currentWorkspace, selectWorkspace } from '../api/session';
import { Link } from '../ui/Link';
import { useLocation } from './router';
import { type ServerInfo, logout } from './server';
import { THEMES, type Theme, applyTheme, storedTheme } from './theme';

export const NAV: Array<{ href: string; label: string }> = [
  { href: '/graph', label: 'Graph' },
  { href: '/query', label: 'Query' },
  { href: '/chat', label: 'Chat' },
  { href: '/documents', label: 'Documents' },
  { href: '/review', label: 'Review' },
  { href: '/tasks', label: 'Tasks' },
  { href: '/workspace', label: 'Workspace' },
  { href: '/costs', label: 'Costs' },
];

interface Props {
  info: ServerInfo;
  /** The last health check was answered. */
  reachable: boolean;
  user: AuthUser | null;
  workspaces: Workspace[] | null;
  onWorkspacesChanged: () => void;
  onSignedOut: () => void;
}

export function Header({ info, reachable, user, workspaces, onSignedOut }: Props) {
  const { path } = useLocation();
  const { health } = info;
  const [theme, setTheme] = useState(storedTheme);
  return (
    <header className="topbar">
      <Link href="/" className="brand">
        kgrag
      </Link>
      <nav>
        {NAV.map((item) => (
          <Link key={item.href} href={item.href} className={path.startsWith(item.href) ? 'active' : undefined}>
            {item.label}
          </Link>
        ))}
      </nav>
      <div className="topbar-right">
        {workspaces && workspaces.length > 0 ? (
          <label className="workspace-switch">
            <span>Workspace</span>
            <select value={currentWorkspace() ?? ''} onChange={(e) => selectWorkspace(e.target.value)} aria-label="Workspace">
              {workspaces.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.name}
                </option>
              ))}
            </select>
          </label>
        ) : (
          <span className="muted" title="X-Workspace-ID is not sent; the service uses its default workspace">
            workspace {health.workspace_id}
          </span>
        )}
        <span
          className={`status-dot ${reachable ? health.status : 'unreachable'}`}
          data-testid="health-dot"
          role="img"
          aria-label={reachable ? `Service ${health.status}` : 'Service not answering'}
          title={
            reachable
              ? `${health.status}: ${health.storage_mode} storage, ${health.llm_provider_name} provider`
              : 'The service does not answer its health check'
          }
        />
        <span className="muted">
          {health.storage_mode} · {health.llm_provider_name}
        </span>
        <select
          className="theme-switch"
          value={theme}
          aria-label="Colour theme"
          onChange={(e) => {
            const next = e.target.value as Theme;
            applyTheme(next);
            setTheme(next);
          }}
        >
          {THEMES.map((t) => (
            <option key={t.value} value={t.value}>
              {t.label}
            </option>
          ))}
        </select>
        {user && (
          <span className="user">
            {user.username}
            <button
              className="link"
              onClick={() => {
                void logout().then(onSignedOut);
              }}
            >
              Sign out
            </button>
          </span>
        )}
      </div>
    </header>
  );
}
