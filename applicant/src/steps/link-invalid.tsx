import { type MessageKey, t } from '../i18n';
import { Screen } from '../ui';

export const LINK_PROBLEMS = ['used', 'expired', 'revoked', 'unknown', 'session'] as const;
export type LinkProblem = (typeof LINK_PROBLEMS)[number];

/** A link that cannot open the flow (docs/journey.md: `/applicant/?link=used|expired|revoked|unknown`), or a
 * session that has ended: what happened and what to do. */
export function LinkInvalid(props: { problem: LinkProblem }) {
  return (
    <Screen step="link-invalid" title={t('invalid.title')}>
      <p data-problem={props.problem}>{t(`invalid.${props.problem}` as MessageKey)}</p>
      <p>{t('invalid.what')}</p>
    </Screen>
  );
}
