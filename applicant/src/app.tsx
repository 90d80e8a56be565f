import { useState } from 'preact/hooks';
import { api, type DocumentStep, type SessionView, type Step } from './api';
import { notifyParent, redirectTarget } from './embed';
import { t } from './i18n';
import { Consent } from './steps/consent';
import { Document } from './steps/document';
import { Done } from './steps/done';
import { Handoff, PHONE_STEPS } from './steps/handoff';
import { Intake } from './steps/intake';
import { Review } from './steps/review';
import { Selfie } from './steps/selfie';
import { Screen } from './ui';

/**
 * The journey: the server's session view decides the screen (the first step not done, in the order of
 * docs/journey.md), so that a reload, a second device or a restarted server resume in the same place. A hand-off
 * session (the phone) does only the capture steps.
 */

type Current = Step | { name: 'done' } | { name: 'phone-done' };

function current(view: SessionView): Current {
  if (view.status !== 'collecting') return { name: 'done' };
  const phone = view.purpose === 'handoff';
  for (const step of view.steps) {
    if (phone && !PHONE_STEPS.includes(step.name)) continue;
    if (!step.done) return step;
  }
  return phone ? { name: 'phone-done' } : { name: 'done' };
}

export function App(props: { initial: SessionView }) {
  const [view, setView] = useState(props.initial);
  const [handoff, setHandoff] = useState(false);
  const [cancelled, setCancelled] = useState(false);
  const step = current(view);
  const phone = view.purpose === 'handoff';
  const capturing = step.name === 'document' || step.name === 'selfie';
  const onHandoff = phone ? undefined : () => setHandoff(true);
  const onView = (v: SessionView) => {
    setView(v);
    setHandoff(false);
  };
  const cancel = async () => {
    await api.cancel().catch(() => {});
    notifyParent(view.flow_id, 'cancelled');
    if (view.redirect_url)
      return location.assign(redirectTarget(view.redirect_url, view.flow_id, 'cancelled'));
    setCancelled(true);
  };
  const numbered = view.steps.filter((s) => !phone || PHONE_STEPS.includes(s.name));
  const n = numbered.findIndex((s) => s.name === step.name);

  return (
    <>
      <header class="top">
        <p class="tenant">{t('app.for', { tenant: view.tenant.display_name })}</p>
        {n >= 0 && <p class="progress">{t('app.step', { n: n + 1, total: numbered.length })}</p>}
      </header>
      {cancelled ? (
        <Screen step="done" title={t('app.title')}>
          <p>{t('app.cancelled')}</p>
        </Screen>
      ) : handoff && capturing ? (
        <Screen step={step.name} title={t('handoff.title')}>
          <Handoff onView={onView} onClose={() => setHandoff(false)} />
        </Screen>
      ) : (
        <StepScreen step={step} view={view} onView={onView} onHandoff={onHandoff} />
      )}
      {view.status === 'collecting' && !phone && !cancelled && (
        <footer class="bottom">
          <button type="button" class="link" onClick={cancel}>
            {t('app.cancel')}
          </button>
        </footer>
      )}
    </>
  );
}

function StepScreen(props: {
  step: Current;
  view: SessionView;
  onView: (v: SessionView) => void;
  onHandoff: (() => void) | undefined;
}) {
  const { step, view, onView } = props;
  const handoff = props.onHandoff ? { onHandoff: props.onHandoff } : {};
  switch (step.name) {
    case 'consent':
      return <Consent view={view} step={step} onView={onView} />;
    case 'intake':
      return <Intake step={step} onView={onView} />;
    case 'document':
      return <Document view={view} step={step} onView={onView} {...handoff} />;
    case 'selfie': {
      const doc = view.steps.find((s): s is DocumentStep => s.name === 'document');
      return (
        <Selfie
          view={view}
          step={step}
          captureMode={doc?.capture_mode ?? 'live_or_upload'}
          onView={onView}
          {...handoff}
        />
      );
    }
    case 'review':
      return <Review view={view} onView={onView} />;
    case 'phone-done':
      return (
        <Screen step="done" title={t('done.title')}>
          <p>{t('handoff.phone_done')}</p>
        </Screen>
      );
    case 'done':
      return <Done view={view} onView={onView} />;
  }
}
