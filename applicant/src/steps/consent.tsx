import { useState } from 'preact/hooks';
import { api, type ConsentStep, type SessionView } from '../api';
import { t } from '../i18n';
import { Screen } from '../ui';
import { ErrorText, useAction } from './common';

/** The version of the consent wording this page shows (messages/*.ts `consent.*`), recorded with the consent. */
export const CONSENT_TEXT_VERSION = 'hosted-page-2026-11';

export function Consent(props: { view: SessionView; step: ConsentStep; onView: (v: SessionView) => void }) {
  const [agreed, setAgreed] = useState(false);
  const [missing, setMissing] = useState(false);
  const action = useAction();
  const accept = () => {
    if (props.step.biometric_required && !agreed) return setMissing(true);
    void action.run(async () =>
      props.onView(
        await api.consent({
          biometric: agreed,
          policy_version: props.step.policy_version ?? CONSENT_TEXT_VERSION,
        }),
      ),
    );
  };
  return (
    <Screen step="consent" title={t('consent.title')}>
      <p>{t('consent.body', { tenant: props.view.tenant.display_name })}</p>
      <div class="check">
        <input
          id="consent-biometric"
          type="checkbox"
          name="biometric"
          checked={agreed}
          aria-invalid={missing ? 'true' : undefined}
          aria-describedby={missing ? 'consent-error' : undefined}
          onChange={(e) => {
            setAgreed((e.currentTarget as HTMLInputElement).checked);
            setMissing(false);
          }}
        />
        <label for="consent-biometric">{t('consent.biometric')}</label>
      </div>
      <p class="muted">
        {t('consent.policy', { version: props.step.policy_version ?? CONSENT_TEXT_VERSION })}
      </p>
      {missing && (
        <p id="consent-error" class="error" role="alert">
          {t('consent.required')}
        </p>
      )}
      <ErrorText error={action.error} />
      <div class="actions">
        <button type="button" class="primary" data-action="accept" disabled={action.busy} onClick={accept}>
          {t('consent.accept')}
        </button>
      </div>
    </Screen>
  );
}
