import { QUALITY_MEASURE } from '../../identity/quality-thresholds.js';
import { type FrameQuality, judgeFrame, toGray } from './quality';

/** The live camera: the rear one for documents, the front one for the selfie. */

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export type CameraProblem = 'denied' | 'missing';

export class CameraError extends Error {
  constructor(readonly problem: CameraProblem) {
    super(problem);
  }
}

export async function openCamera(facing: 'environment' | 'user'): Promise<MediaStream> {
  if (!navigator.mediaDevices?.getUserMedia) throw new CameraError('missing');
  try {
    return await navigator.mediaDevices.getUserMedia({
      audio: false,
      video: { facingMode: { ideal: facing }, width: { ideal: 1920 }, height: { ideal: 1080 } },
    });
  } catch (e) {
    const name = (e as { name?: string }).name;
    throw new CameraError(name === 'NotAllowedError' || name === 'SecurityError' ? 'denied' : 'missing');
  }
}

export function stopCamera(stream: MediaStream | null): void {
  for (const track of stream?.getTracks() ?? []) track.stop();
}

/** Width / height of an ID-3 passport page and of an ID-1 card (ISO/IEC 7810). */
const ASPECT = { passport: 125 / 88, card: 85.6 / 53.98 };

/** The guide frame in the video's pixels: the largest rectangle of the document's shape within 90 % of the
 * frame's width and 80 % of its height, centred. */
export function guideRect(videoWidth: number, videoHeight: number, docType: string): Rect {
  const aspect = docType === 'passport' ? ASPECT.passport : ASPECT.card;
  let width = videoWidth * 0.9;
  let height = width / aspect;
  if (height > videoHeight * 0.8) {
    height = videoHeight * 0.8;
    width = height * aspect;
  }
  return {
    x: Math.round((videoWidth - width) / 2),
    y: Math.round((videoHeight - height) / 2),
    width: Math.round(width),
    height: Math.round(height),
  };
}

/** The `rect` of the current frame as a JPEG. */
export function grabStill(video: HTMLVideoElement, rect: Rect): Promise<Blob> {
  const canvas = document.createElement('canvas');
  canvas.width = rect.width;
  canvas.height = rect.height;
  canvas
    .getContext('2d')
    ?.drawImage(video, rect.x, rect.y, rect.width, rect.height, 0, 0, rect.width, rect.height);
  return new Promise((resolve, reject) =>
    canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('capture failed'))), 'image/jpeg', 0.92),
  );
}

/** Measures the `rect` of the video's current frame, drawn into `canvas` at the measuring width (quality.ts). */
export function measureVideo(video: HTMLVideoElement, rect: Rect, canvas: HTMLCanvasElement): FrameQuality {
  const width = QUALITY_MEASURE.width;
  const height = Math.max(3, Math.round((rect.height * width) / rect.width));
  canvas.width = width;
  canvas.height = height;
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  if (!ctx) return { blur: 0, glare: 0, reasons: [] };
  ctx.drawImage(video, rect.x, rect.y, rect.width, rect.height, 0, 0, width, height);
  const gray = toGray(ctx.getImageData(0, 0, width, height).data);
  return judgeFrame(gray, width, height, rect);
}
