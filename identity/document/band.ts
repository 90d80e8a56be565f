// The MRZ band of a grey image by image analysis (locate.ts) at the orientations worth trying: used by the
// capture-quality verdict (is there an MRZ?) and by the reader (where to read, before any OCR).
import { estimateSkew, type Gray, resize, rotate } from './image.js';
import { LOCATE_WIDTH, locateMrz } from './locate.js';

/** An MRZ band found by image analysis, as fractions of the width and height of the image turned by `rotation`
 * (clockwise degrees), so that it maps onto that image at any resolution. */
export interface FoundBand {
  rotation: number;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  /** line height as a fraction of the turned image's height */
  lineHeight: number;
  lines: number;
}

/** The MRZ band of a grey image by image analysis, on a copy LOCATE_WIDTH long: as it is (most captures are
 * upright), then deskewed, then a quarter turn more (a card photographed sideways); null when none shows one. */
export async function findMrzBand(gray: Gray): Promise<FoundBand | null> {
  const k = LOCATE_WIDTH / Math.max(gray.width, gray.height);
  const small = k < 1 ? await resize(gray, gray.width * k, gray.height * k) : gray;
  const tried = new Set<number>();
  const attempt = async (rotation: number): Promise<FoundBand | null> => {
    const r = Math.round(rotation * 100) / 100;
    if (tried.has(r)) return null;
    tried.add(r);
    const turned = await rotate(small, r);
    const fit =
      Math.abs(turned.width - LOCATE_WIDTH) > 8
        ? await resize(turned, LOCATE_WIDTH, (turned.height * LOCATE_WIDTH) / turned.width)
        : turned;
    const b = locateMrz(fit);
    if (!b) return null;
    const fx = (v: number) => v / fit.width;
    const fy = (v: number) => v / fit.height;
    return {
      rotation: r,
      x0: fx(b.x0),
      x1: fx(b.x1),
      y0: fy(b.y0),
      y1: fy(b.y1),
      lineHeight: fy(b.lineHeight),
      lines: b.lines,
    };
  };
  const upright = await attempt(0);
  if (upright) return upright;
  const skew = await estimateSkew(small);
  const base = Math.abs(skew) < 0.75 ? 0 : skew;
  return (await attempt(base)) ?? (await attempt(base + 90));
}
