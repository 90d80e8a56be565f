import { useEffect, useState } from 'preact/hooks';
import { api, type SessionView, type StepName } from '../api';
import { type MessageKey, t } from '../i18n';
import { QrCode } from '../qr';
import { Live } from '../ui';
import { ErrorText } from './common';

const POLL_MS = 2000;
/** what the phone's upload-only session does */
export const PHONE_STEPS: readonly StepName[] = ['document', 'selfie'];

/**
 * Desktop → phone: a one-time link valid 15 minutes (QR code and copyable), then the page follows the phone's
 * progress by reading the session view and continues once the phone has done every capture step.
 */
export function Handoff(props: { onView: (v: SessionView) => void; onClose: () => void }) {
  const [link, setLink] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [copied, setCopied] = useState(false);
  const [progress, setProgress] = useState('');
  useEffect(() => {
    api.handoff().then((r) => setLink(r.url), setError);
  }, []);
  useEffect(() => {
    if (!link) return;
    const seen = new Set<StepName>();
    const timer = setInterval(async () => {
      const view = await api.session().catch(() => null);
      if (!view) return;
      if (view.handoff?.status === 'opened' && !seen.size) setProgress(t('handoff.opened'));
      const capture = view.steps.filter((s) => PHONE_STEPS.includes(s.name));
      for (const s of capture) {
        if (!s.done || seen.has(s.name)) continue;
        seen.add(s.name);
        setProgress(t('handoff.progress', { step: t(`review.${s.name}` as MessageKey) }));
      }
      if (capture.every((s) => s.done)) props.onView(view);
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [link]);

  const copy = async () => {
    if (!link) return;
    await navigator.clipboard?.writeText(link).catch(() => {});
    setCopied(true);
  };
  return (
    <div class="handoff" data-handoff="">
      <p>{t('handoff.body')}</p>
      <ErrorText error={error} />
      {link && (
        <>
          <QrCode text={link} label={t('handoff.qr')} />
          <div class="field">
            <label for="handoff-link">{t('handoff.link_label')}</label>
            <input
              id="handoff-link"
              type="url"
              readOnly
              value={link}
              dir="ltr"
              onFocus={(e) => (e.currentTarget as HTMLInputElement).select()}
            />
          </div>
          <div class="actions">
            <button type="button" onClick={copy}>
              {t('handoff.copy')}
            </button>
          </div>
          <p class="muted">{t('handoff.waiting')}</p>
        </>
      )}
      <Live text={copied ? t('handoff.copied') : progress} />
      <div class="actions">
        <button type="button" onClick={props.onClose}>
          {t('handoff.back')}
        </button>
      </div>
    </div>
  );
}
