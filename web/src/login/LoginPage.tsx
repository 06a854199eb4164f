import { type FormEvent, useState } from 'react';
import { login } from '../shell/server';
import { ErrorNote, Spinner } from '../ui/feedback';

/** Sign-in with the service's own accounts (`POST /auth/login`). */
export function LoginPage({ onSignedIn }: { onSignedIn: () => void }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await login(username, password);
      onSignedIn();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="login">
      <form className="card login-card" onSubmit={(e) => void submit(e)}>
        <h1>kgrag</h1>
        <p className="muted">Sign in to the console.</p>
        <label>
          Username
          <input
            name="username"
            autoComplete="username"
            value={username}
            onChange={(e) => setUsername(e.target.value)}
            required
            autoFocus
          />
        </label>
        <label>
          Password
          <input
            name="password"
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            required
          />
        </label>
        <ErrorNote error={error} />
        <button type="submit" className="primary" disabled={busy}>
          {busy ? <Spinner label="Signing in…" /> : 'Sign in'}
        </button>
      </form>
    </div>
  );
}
