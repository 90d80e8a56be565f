import { useState } from 'preact/hooks';
import { login, type Session } from '../api';
import { ErrorBox } from '../ui';

const TENANT_KEY = 'veriscreen.tenant_id';
/** A tenant id (a UUID, either case). Browsers compile `pattern` with the `v` flag, where a bare `-` at the end of a
 * character class is a syntax error and the whole pattern is ignored; this one has no dash inside a class. */
export const WORKSPACE_ID_PATTERN =
  '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';

function initialTenant(): string {
  const fromUrl = new URLSearchParams(window.location.search).get('tenant');
  if (fromUrl) return fromUrl;
  try {
    return window.localStorage.getItem(TENANT_KEY) ?? '';
  } catch {
    return '';
  }
}

export function Login({ onSignedIn }: { onSignedIn: (s: Session) => void }) {
  const [tenant, setTenant] = useState(initialTenant);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const session = await login(tenant.trim(), email.trim(), password);
      try {
        window.localStorage.setItem(TENANT_KEY, tenant.trim());
      } catch {
        // private mode: the workspace is simply not remembered
      }
      setPassword('');
      onSignedIn(session);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="login" id="main">
      <form class="card login-card" onSubmit={submit} aria-labelledby="login-title">
        <h1 id="login-title">Sign in to Veriscreen</h1>
        <p class="muted">Operator dashboard: alerts, flows, applicants and screening configuration.</p>
        <label for="login-tenant">Workspace ID</label>
        <input
          id="login-tenant"
          name="tenant"
          required
          pattern={WORKSPACE_ID_PATTERN}
          title="A workspace ID: 36 characters, hex digits in groups of 8-4-4-4-12 with dashes"
          value={tenant}
          onInput={(e) => setTenant(e.currentTarget.value)}
          aria-describedby="login-tenant-hint"
          autocomplete="organization"
        />
        <small id="login-tenant-hint" class="muted">
          The tenant ID your administrator gave you (remembered on this device).
        </small>
        <label for="login-email">E-mail</label>
        <input
          id="login-email"
          name="email"
          type="email"
          required
          autocomplete="username"
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
        <label for="login-password">Password</label>
        <input
          id="login-password"
          name="password"
          type="password"
          required
          autocomplete="current-password"
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
        <ErrorBox error={error} title="Sign-in failed" />
        <button type="submit" class="btn btn-primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
