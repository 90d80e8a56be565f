import { useEffect } from 'preact/hooks';
import { api, type DocumentStep, type SessionView } from '../api';
import { notifyParent, redirectTarget } from '../embed';
import { t } from '../i18n';
import { Screen } from '../ui';

const POLL_MS = 1500;
/** how long the result stays on screen before the page returns to the tenant */
const REDIRECT_MS = 2500;

/** Submitted: the page follows the flow until it is decided (never saying how), tells its embedder, and returns
 * to the tenant's `redirect_url` with the flow id and `status=submitted`. */
export function Done(props: { view: SessionView; onView: (v: SessionView) => void }) {
  const { view } = props;
  const finished = view.status === 'done';
  // a required chip is read by the tenant's app (the page cannot): until the flow is decided, say that this is what
  // it waits for rather than "less than a minute"
  const chip = view.steps.find((s): s is DocumentStep => s.name === 'document')?.nfc === 'required';
  const target = view.redirect_url ? redirectTarget(view.redirect_url, view.flow_id, 'submitted') : null;
  useEffect(() => notifyParent(view.flow_id, 'submitted'), [view.flow_id]);
  useEffect(() => {
    if (finished) return;
    const timer = setTimeout(() => api.session().then(props.onView, () => {}), POLL_MS);
    return () => clearTimeout(timer);
  }, [view]);
  useEffect(() => {
    if (!finished || !target) return;
    const timer = setTimeout(() => location.assign(target), REDIRECT_MS);
    return () => clearTimeout(timer);
  }, [finished, target]);
  return (
    <Screen step="done" title={t('done.title')}>
      <p role="status" data-status={view.status}>
        {finished
          ? t('done.finished', { tenant: view.tenant.display_name })
          : t(chip ? 'done.chip' : 'done.processing', { tenant: view.tenant.display_name })}
      </p>
      {target && (
        <div class="actions">
          <a class="button primary" data-action="next" href={target}>
            {t('done.continue')}
          </a>
        </div>
      )}
    </Screen>
  );
}
