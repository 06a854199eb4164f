import { useCallback, useEffect, useState } from 'react';
import { describeError, onUnauthorized } from '../api/client';
import type { AuthUser, Workspace } from '../api/pending';
import { currentSession, currentWorkspace, onSessionChange } from '../api/session';
import { LoginPage } from '../login/LoginPage';
import { Spinner } from '../ui/feedback';
import { Header } from './Header';
import { Pages } from './Pages';
import { navigate, useLocation } from './router';
import { HEALTH_POLL_MS, type ServerInfo, loadServerInfo, loadWorkspaces, readHealth, whoAmI } from './server';

type Gate = { state: 'loading' } | { state: 'failed'; error: unknown } | { state: 'login' } | { state: 'ready'; user: AuthUser | null };

/**
 * Loads what the server says about itself, then either the login (authentication on, nobody signed in) or the
 * pages. With authentication off or in development mode, the pages load without a login.
 */
export function App() {
  const { path, query } = useLocation();
  const [info, setInfo] = useState<ServerInfo | null>(null);
  const [gate, setGate] = useState<Gate>({ state: 'loading' });
  const [workspaces, setWorkspaces] = useState<Workspace[] | null>(null);
  // Whether the last health check was answered; the header's dot shows it.
  const [reachable, setReachable] = useState(true);
  // The pages are remounted when the workspace changes, so that each loads the new workspace's data.
  const [workspace, setWorkspace] = useState(currentWorkspace());
  useEffect(() => onSessionChange(() => setWorkspace(currentWorkspace())), []);

  const enter = useCallback(async (server: ServerInfo) => {
    let user: AuthUser | null = null;
    if (server.authRequired) {
      user = currentSession()?.user ?? null;
      // A session kept from an earlier visit is checked; without one, credentials the browser sends anyway may do.
      const me = await whoAmI();
      if (!me) {
        setGate({ state: 'login' });
        return;
      }
      user = me ?? user;
    }
    setWorkspaces(await loadWorkspaces().catch(() => null));
    setGate({ state: 'ready', user });
  }, []);

  useEffect(() => {
    loadServerInfo()
      .then((server) => {
        setInfo(server);
        return enter(server);
      })
      .catch((error: unknown) => setGate({ state: 'failed', error }));
  }, [enter]);

  const started = info !== null;
  useEffect(() => {
    if (!started) return;
    const check = () =>
      void readHealth().then((health) => {
        setReachable(health !== null);
        if (health) setInfo((current) => current && { ...current, health: { ...current.health, ...health } });
      });
    const timer = window.setInterval(check, HEALTH_POLL_MS);
    window.addEventListener('online', check);
    window.addEventListener('offline', check);
    return () => {
      window.clearInterval(timer);
      window.removeEventListener('online', check);
      window.removeEventListener('offline', check);
    };
  }, [started]);

  useEffect(
    () =>
      onUnauthorized(() => {
        if (info?.authRequired) setGate({ state: 'login' });
      }),
    [info],
  );

  // Protected pages send a visitor without a session to the login page, which sends them back afterwards.
  useEffect(() => {
    if (gate.state === 'login' && path !== '/login')
      navigate(`/login?next=${encodeURIComponent(path + location.search)}`, { replace: true });
    if (gate.state === 'ready' && path === '/login') navigate(query.get('next') || '/', { replace: true });
  }, [gate, path, query]);

  if (gate.state === 'loading' || !info) {
    return gate.state === 'failed' ? (
      <div className="boot-failed note error">The service did not answer /health: {describeError(gate.error)}</div>
    ) : (
      <div className="boot">
        <Spinner label="Connecting to the service…" />
      </div>
    );
  }
  if (gate.state === 'failed') return <div className="boot-failed note error">{describeError(gate.error)}</div>;
  if (gate.state === 'login') return <LoginPage onSignedIn={() => void enter(info)} />;
  return (
    <div className="shell">
      <Header
        info={info}
        reachable={reachable}
        user={gate.user}
        workspaces={workspaces}
        onWorkspacesChanged={() => void loadWorkspaces().then(setWorkspaces)}
        onSignedOut={() => setGate({ state: 'login' })}
      />
      <main className="page">
        <Pages
          key={workspace ?? ''}
          path={path}
          info={info}
          workspaces={workspaces}
          onWorkspacesChanged={() => void loadWorkspaces().then(setWorkspaces)}
        />
      </main>
    </div>
  );
}
