import { useEffect, useState } from 'preact/hooks';
import { api, type LivenessChallenge, type SelfieStep, type SessionView, sendCapture } from '../api';
import { Capture } from '../capture';
import { type MessageKey, t } from '../i18n';
import { Screen } from '../ui';
import { ErrorText } from './common';

/**
 * The selfie: with the liveness challenge (docs/journey.md) the server names a short random sequence of head poses
 * and the page takes one photo per pose, each uploaded with the challenge's id and its pose; without it, one photo.
 * A reload starts a new challenge (a challenge is one use).
 */
export function Selfie(props: {
  view: SessionView;
  step: SelfieStep;
  captureMode: string;
  onView: (v: SessionView) => void;
  onHandoff?: () => void;
}) {
  const flowId = props.view.flow_id;
  const [challenge, setChallenge] = useState<LivenessChallenge | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [index, setIndex] = useState(0);
  useEffect(() => {
    if (!props.step.liveness) return;
    api.livenessChallenge(flowId).then(setChallenge, setError);
  }, [flowId, props.step.liveness]);

  const poses = props.step.liveness ? (challenge?.poses ?? []) : [];
  const pose = poses[index];
  const finished = async () => {
    if (index + 1 < poses.length) return setIndex(index + 1);
    props.onView(await api.session());
  };
  const title = pose
    ? t('selfie.pose', { n: index + 1, total: poses.length, pose: t(`pose.${pose}` as MessageKey) })
    : t('doc.selfie');
  const waiting = props.step.liveness && !challenge;
  return (
    <Screen step="selfie" title={t('selfie.title')}>
      {props.step.liveness && challenge && index === 0 && (
        <p>{t('selfie.challenge', { total: poses.length })}</p>
      )}
      <ErrorText error={error} />
      {!waiting && (
        <Capture
          key={`selfie-${index}`}
          kind="selfie"
          docType="selfie"
          title={title}
          instruction={t('capture.hint_selfie')}
          allowCamera={true}
          allowUpload={!props.step.liveness && props.captureMode !== 'live_only'}
          send={(image, capture) =>
            sendCapture(
              flowId,
              {
                doc_type: 'selfie',
                side: 'single',
                capture,
                mime_type: image.type === 'image/png' ? 'image/png' : 'image/jpeg',
                ...(challenge && pose ? { liveness_challenge_id: challenge.id, pose } : {}),
              },
              image,
            )
          }
          onDone={finished}
          {...(props.onHandoff ? { onHandoff: props.onHandoff } : {})}
        />
      )}
    </Screen>
  );
}
