import { ApiFailure, api, type SessionView } from '../api';
import { type MessageKey, t } from '../i18n';
import { Screen } from '../ui';
import { ErrorText, useAction } from './common';

export function Review(props: { view: SessionView; onView: (v: SessionView) => void }) {
  const action = useAction();
  const done = props.view.steps.filter((s) => s.name !== 'review' && s.done);
  const submit = () =>
    action.run(async () => {
      try {
        props.onView(await api.submit());
      } catch (e) {
        // something went missing meanwhile (e.g. a document was rejected): the view shows what
        if (e instanceof ApiFailure && e.code === 'inputs_missing') return props.onView(await api.session());
        throw e;
      }
    });
  return (
    <Screen step="review" title={t('review.title')}>
      <p>{t('review.body')}</p>
      <ul class="checklist">
        {done.map((s) => (
          <li key={s.name}>
            <span aria-hidden="true">✓ </span>
            {t(`review.${s.name}` as MessageKey)}
          </li>
        ))}
      </ul>
      <ErrorText error={action.error} />
      <div class="actions">
        <button type="button" class="primary" data-action="submit" disabled={action.busy} onClick={submit}>
          {t('review.submit')}
        </button>
      </div>
    </Screen>
  );
}
