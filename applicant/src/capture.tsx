import { useEffect, useRef, useState } from 'preact/hooks';
import type { QualityVerdict } from './api';
import {
  CameraError,
  type CameraProblem,
  grabStill,
  guideRect,
  measureVideo,
  openCamera,
  type Rect,
  stopCamera,
} from './camera';
import { type MessageKey, t, tMaybe } from './i18n';
import { Live } from './ui';

/**
 * One capture: the live camera with a guide frame and live feedback (documents: blur, glare, size, from
 * quality.ts), "Take photo", a preview with "Retake" / "Use this photo", then the server's verdict. A file picker
 * only when the capture mode allows uploads. A missing or refused camera is explained, with the phone hand-off and
 * the upload (where allowed) as ways forward.
 */

export interface CaptureProps {
  kind: 'document' | 'selfie';
  docType: string;
  title: string;
  instruction: string;
  allowCamera: boolean;
  allowUpload: boolean;
  send: (image: Blob, capture: 'camera' | 'upload') => Promise<QualityVerdict>;
  onDone: () => void;
  onHandoff?: () => void;
}

type Phase =
  | { name: 'starting' }
  | { name: 'live' }
  | { name: 'no-camera'; problem: CameraProblem }
  | { name: 'upload-only' }
  | { name: 'preview'; image: Blob; url: string; capture: 'camera' | 'upload' }
  | { name: 'sending' }
  | { name: 'rejected'; reasons: string[] };

const FEEDBACK_MS = 500;

function useCamera(facing: 'environment' | 'user', wanted: boolean, onFail: (p: CameraProblem) => void) {
  const video = useRef<HTMLVideoElement>(null);
  const [size, setSize] = useState<{ w: number; h: number } | null>(null);
  useEffect(() => {
    if (!wanted) return;
    let stream: MediaStream | null = null;
    let gone = false;
    openCamera(facing)
      .then((s) => {
        stream = s;
        if (gone) return stopCamera(s);
        const v = video.current;
        if (!v) return;
        v.srcObject = s;
        v.onloadedmetadata = () => setSize({ w: v.videoWidth, h: v.videoHeight });
        void v.play().catch(() => {});
      })
      .catch((e: unknown) => onFail(e instanceof CameraError ? e.problem : 'missing'));
    return () => {
      gone = true;
      stopCamera(stream);
    };
  }, [facing, wanted]);
  return { video, size };
}

function useFeedback(on: boolean, video: HTMLVideoElement | null, rect: Rect | null): MessageKey | null {
  const [key, setKey] = useState<MessageKey | null>(null);
  useEffect(() => {
    if (!on || !video || !rect) return;
    const canvas = document.createElement('canvas');
    const tick = () => {
      const q = measureVideo(video, rect, canvas);
      const first = q.reasons[0];
      setKey(first ? (`feedback.${first}` as MessageKey) : 'feedback.good');
    };
    const timer = setInterval(tick, FEEDBACK_MS);
    return () => clearInterval(timer);
  }, [on, video, rect?.x, rect?.y, rect?.width, rect?.height]);
  return key;
}

export function Capture(props: CaptureProps) {
  const [phase, setPhase] = useState<Phase>(
    props.allowCamera ? { name: 'starting' } : { name: 'upload-only' },
  );
  const [status, setStatus] = useState('');
  const cameraWanted = props.allowCamera && phase.name !== 'no-camera';
  const cam = useCamera(props.kind === 'selfie' ? 'user' : 'environment', cameraWanted, (problem) =>
    setPhase({ name: 'no-camera', problem }),
  );
  const rect = cam.size
    ? props.kind === 'document'
      ? guideRect(cam.size.w, cam.size.h, props.docType)
      : { x: 0, y: 0, width: cam.size.w, height: cam.size.h }
    : null;
  const live = phase.name === 'live' || phase.name === 'starting';
  const feedback = useFeedback(live && props.kind === 'document', cam.video.current, rect);

  useEffect(() => {
    if (phase.name === 'starting' && cam.size) setPhase({ name: 'live' });
  }, [cam.size, phase.name]);
  useEffect(() => {
    if (phase.name === 'live')
      setStatus(t(props.kind === 'selfie' ? 'capture.on_selfie' : 'capture.on_document'));
    if (phase.name === 'starting') setStatus(t('capture.starting'));
  }, [phase.name]);
  useEffect(() => () => (phase.name === 'preview' ? URL.revokeObjectURL(phase.url) : undefined), [phase]);

  const take = async () => {
    const v = cam.video.current;
    if (!v || !rect) return;
    const image = await grabStill(v, rect);
    setPhase({ name: 'preview', image, url: URL.createObjectURL(image), capture: 'camera' });
  };
  const picked = (file: File | undefined) => {
    if (file) setPhase({ name: 'preview', image: file, url: URL.createObjectURL(file), capture: 'upload' });
  };
  const retake = () =>
    setPhase(props.allowCamera && cam.size ? { name: 'live' } : restart(props.allowCamera));
  const use = async (image: Blob, capture: 'camera' | 'upload') => {
    setPhase({ name: 'sending' });
    setStatus(t('capture.sending'));
    try {
      const verdict = await props.send(image, capture);
      if (verdict.ok) {
        setStatus(t('capture.accepted'));
        props.onDone();
        return;
      }
      setPhase({ name: 'rejected', reasons: [...(verdict.quality_reasons ?? []), ...verdict.reasons] });
    } catch {
      setPhase({ name: 'rejected', reasons: [] });
    }
  };

  const reasons = phase.name === 'rejected' ? rejectedText(phase.reasons) : '';
  return (
    <div class="capture">
      <h2 id="capture-title">{props.title}</h2>
      <p class="instruction">{props.instruction}</p>
      {phase.name === 'no-camera' && <NoCamera problem={phase.problem} allowUpload={props.allowUpload} />}
      {cameraWanted && (
        <Viewfinder
          kind={props.kind}
          video={cam.video}
          size={cam.size}
          rect={rect}
          hidden={phase.name !== 'live' && phase.name !== 'starting'}
        />
      )}
      {phase.name === 'preview' && <img class="preview" src={phase.url} alt={t('capture.preview_alt')} />}
      {live && feedback && (
        <p
          class={`feedback ${feedback === 'feedback.good' ? 'good' : ''}`}
          data-feedback={feedback}
          aria-live="polite"
        >
          {t(feedback)}
        </p>
      )}
      {phase.name === 'rejected' && (
        <p class="error" role="alert">
          {t('capture.rejected', { reasons })}
        </p>
      )}
      <Live text={status} />
      <div class="actions">
        {phase.name === 'live' && (
          <button type="button" class="primary" data-action="capture" onClick={take}>
            {t('capture.capture')}
          </button>
        )}
        {phase.name === 'preview' && (
          <>
            <button
              type="button"
              class="primary"
              data-action="next"
              onClick={() => use(phase.image, phase.capture)}
            >
              {t('capture.use')}
            </button>
            <button type="button" data-action="retake" onClick={retake}>
              {t('capture.retake')}
            </button>
          </>
        )}
        {phase.name === 'rejected' && (
          <button type="button" class="primary" data-action="retake" onClick={retake}>
            {t('capture.retake')}
          </button>
        )}
        {props.allowUpload && phase.name !== 'sending' && phase.name !== 'preview' && (
          <FilePicker label={t('capture.file_label')} onPick={picked} />
        )}
        {props.onHandoff && phase.name !== 'sending' && (
          <button type="button" data-action="handoff" onClick={props.onHandoff}>
            {t('handoff.button')}
          </button>
        )}
      </div>
    </div>
  );
}

const restart = (allowCamera: boolean): Phase =>
  allowCamera ? { name: 'starting' } : { name: 'upload-only' };

function rejectedText(reasons: string[]): string {
  // `document_quality_low` says no more than the quality reasons that come with it
  const shown = reasons.filter((r) => r !== 'document_quality_low' || reasons.length === 1);
  if (!shown.length) return t('reason.other');
  return [...new Set(shown.map((r) => tMaybe(`reason.${r}`, 'reason.other')))].join(' ');
}

function Viewfinder(props: {
  kind: 'document' | 'selfie';
  video: preact.RefObject<HTMLVideoElement>;
  size: { w: number; h: number } | null;
  rect: Rect | null;
  hidden: boolean;
}) {
  const { size, rect } = props;
  const guide =
    size && rect
      ? {
          left: `${(rect.x / size.w) * 100}%`,
          top: `${(rect.y / size.h) * 100}%`,
          width: `${(rect.width / size.w) * 100}%`,
          height: `${(rect.height / size.h) * 100}%`,
        }
      : undefined;
  return (
    <div
      class={`viewfinder ${props.kind}`}
      hidden={props.hidden}
      style={size ? { aspectRatio: `${size.w} / ${size.h}` } : undefined}
    >
      <video ref={props.video} autoPlay playsInline muted aria-label={t('capture.video_label')} />
      {props.kind === 'document' && guide && <div class="guide" style={guide} aria-hidden="true" />}
      {props.kind === 'selfie' && <div class="oval" aria-hidden="true" />}
    </div>
  );
}

function NoCamera(props: { problem: CameraProblem; allowUpload: boolean }) {
  const denied = props.problem === 'denied';
  return (
    <div class="notice" role="alert">
      <p>
        <strong>{t(denied ? 'capture.denied' : 'capture.missing')}</strong>
      </p>
      <p>{t(denied ? 'capture.denied_help' : 'capture.missing_help')}</p>
      {props.allowUpload && <p>{t('capture.upload_help')}</p>}
      {denied && (
        <button type="button" onClick={() => location.reload()}>
          {t('capture.reload')}
        </button>
      )}
    </div>
  );
}

function FilePicker(props: { label: string; onPick: (f: File | undefined) => void }) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <label class="visually-hidden" for="capture-file">
        {props.label}
      </label>
      <input
        ref={input}
        id="capture-file"
        class="visually-hidden"
        type="file"
        accept="image/jpeg,image/png"
        tabIndex={-1}
        onChange={(e) => props.onPick((e.currentTarget as HTMLInputElement).files?.[0])}
      />
      <button type="button" data-action="upload" onClick={() => input.current?.click()}>
        {t('capture.upload')}
      </button>
    </>
  );
}
