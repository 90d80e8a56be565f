import { useState } from 'preact/hooks';
import { ApiFailure } from '../api';
import { t } from '../i18n';

/** A button's async action: busy while it runs, its failure kept for display. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  return {
    busy,
    error,
    async run(fn: () => Promise<void>) {
      setBusy(true);
      setError(null);
      try {
        await fn();
      } catch (e) {
        setError(e);
      } finally {
        setBusy(false);
      }
    },
  };
}

export function errorText(e: unknown): string {
  return e instanceof ApiFailure && e.status === 0 ? t('error.network') : t('error.generic');
}

export function ErrorText(props: { error: unknown }) {
  if (!props.error) return null;
  return (
    <p class="error" role="alert">
      {errorText(props.error)}
    </p>
  );
}
