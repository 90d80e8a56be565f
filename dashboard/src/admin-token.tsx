import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ApiFailure } from './api';

/**
 * The deployment's X-Admin-Token for the deployment-wide /admin screens (dataset versions, FATF listings, list
 * feeds): typed in by the platform operator and kept in this tab's memory only, never stored.
 */
let remembered = '';
export const adminToken = {
  get: (): string => remembered,
  set: (t: string): void => {
    remembered = t;
  },
  clear: (): void => {
    remembered = '';
  },
};

export const refusedToken = (e: unknown): boolean => e instanceof ApiFailure && e.status === 401;
export const TOKEN_REFUSED = 'The admin token was refused (401). It is the X-Admin-Token of this deployment.';

/** Asks for the token before rendering children(token); the children call onRefused on a 401 to ask again. */
export function AdminTokenGate({
  purpose,
  children,
}: {
  purpose: string;
  children: (token: string, onRefused: () => void) => ComponentChildren;
}) {
  const [token, setToken] = useState(adminToken.get());
  const [typed, setTyped] = useState('');
  const [refused, setRefused] = useState(false);
  if (token) {
    return (
      <>
        {children(token, () => {
          adminToken.clear();
          setToken('');
          setRefused(true);
        })}
      </>
    );
  }
  return (
    <form
      class="card stack"
      aria-label="Deployment admin token"
      onSubmit={(e) => {
        e.preventDefault();
        adminToken.set(typed.trim());
        setRefused(false);
        setToken(typed.trim());
      }}
    >
      <p>{purpose} is deployment-wide: every tenant shares it, so it needs the deployment’s admin token.</p>
      <label for="gate-token">Deployment admin token (X-Admin-Token)</label>
      <input
        id="gate-token"
        type="password"
        autocomplete="off"
        value={typed}
        onInput={(e) => setTyped(e.currentTarget.value)}
      />
      <small class="muted">Kept in this tab’s memory only.</small>
      {refused && (
        <p class="error-text" role="alert">
          {TOKEN_REFUSED}
        </p>
      )}
      <div class="row-actions">
        <button type="submit" class="btn btn-primary" disabled={!typed.trim()}>
          Continue
        </button>
      </div>
    </form>
  );
}
