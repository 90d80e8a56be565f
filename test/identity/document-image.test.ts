// The image steps of document reading that need no OCR model: the band locator's black-hat against a window-by-window
// reference, and the skew estimate (made once per image; the turn it finds).
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { estimateSkew, type Gray, postlScore } from '../../identity/document/image.js';
import { blackHat } from '../../identity/document/locate.js';

/** A grey image of pseudo-random levels (a fixed linear congruential sequence), `width` × `height`. */
function noise(width: number, height: number, seed: number): Gray {
  const data = new Uint8Array(width * height);
  let s = seed;
  for (let i = 0; i < data.length; i++) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    data[i] = s % 256;
  }
  return { data, width, height };
}

/** Black-hat by its definition: the max over each k × k window (clipped at the edges), then the min over each
 * window of that, minus the image. */
function blackHatByWindows(g: Gray, k: number): Uint8Array {
  const r = k >> 1;
  const at = (d: Uint8Array, x: number, y: number) => d[y * g.width + x] as number;
  const pass = (d: Uint8Array, max: boolean) => {
    const out = new Uint8Array(d.length);
    for (let y = 0; y < g.height; y++) {
      for (let x = 0; x < g.width; x++) {
        let v = max ? 0 : 255;
        for (let yy = Math.max(0, y - r); yy <= Math.min(g.height - 1, y + r); yy++) {
          for (let xx = Math.max(0, x - r); xx <= Math.min(g.width - 1, x + r); xx++) {
            v = max ? Math.max(v, at(d, xx, yy)) : Math.min(v, at(d, xx, yy));
          }
        }
        out[y * g.width + x] = v;
      }
    }
    return out;
  };
  const closed = pass(pass(g.data, true), false);
  return closed.map((v, i) => v - (g.data[i] as number));
}

describe('the band locator', () => {
  it('computes the black-hat of each window as the definition does, away from the edges', () => {
    for (const [width, height, k] of [
      [37, 23, 5],
      [41, 29, 7],
      [64, 66, 15],
    ] as const) {
      const g = noise(width, height, width * 31 + k);
      const fast = blackHat(g, k).data;
      const slow = blackHatByWindows(g, k);
      // near an edge the window is cut, which the two passes per line handle their own way (a whole block)
      const m = 2 * k;
      const inner = (d: Uint8Array) =>
        [...d].filter((_, i) => {
          const x = i % width;
          const y = Math.floor(i / width);
          return x >= m && x < width - m && y >= m && y < height - m;
        });
      expect(inner(fast).length).toBeGreaterThan(0);
      expect(inner(fast)).toEqual(inner(slow));
    }
  });
});

describe('the skew estimate', () => {
  it('is made once per image, however often a read asks for it', () => {
    const g = noise(60, 40, 7);
    expect(estimateSkew(g)).toBe(estimateSkew(g));
    expect(estimateSkew(noise(60, 40, 7))).not.toBe(estimateSkew(g));
  });

  it('scores rows of dashes sharpest when they lie horizontal', () => {
    // 10 rows of dashes, 4 px high, 12 px apart: many runs on the rows of ink, none between them
    const width = 200;
    const height = 130;
    const ink = new Uint8Array(width * height);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) if (y % 12 < 4 && x % 8 < 5) ink[y * width + x] = 255;
    }
    const at = (deg: number) => postlScore(ink, width, height, deg);
    expect(at(0)).toBeGreaterThan(at(3));
    expect(at(0)).toBeGreaterThan(at(-3));
    expect(at(0)).toBeGreaterThan(at(90));
  });

  it('finds the clockwise turn that makes a page of text lines horizontal', async () => {
    const lines = Array.from(
      { length: 8 },
      (_, i) => `<text x="20" y="${50 + i * 40}">P&lt;UTOERIKSSON&lt;&lt;ANNA&lt;MARIA ${i}</text>`,
    ).join('');
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="700" height="380"><rect width="100%" height="100%" fill="#fff"/><g font-family="DejaVu Sans Mono, monospace" font-size="28">${lines}</g></svg>`;
    for (const turned of [7, -12]) {
      const { data, info } = await sharp(Buffer.from(svg))
        .rotate(turned, { background: '#fff' })
        .grayscale()
        .raw()
        .toBuffer({ resolveWithObject: true });
      const skew = await estimateSkew({ data, width: info.width, height: info.height });
      expect(Math.abs(skew + turned)).toBeLessThanOrEqual(0.5);
    }
  });
});
