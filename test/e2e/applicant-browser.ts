import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { type Browser, chromium, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_FLAGS } from '../helpers/chromium.js';

/** Debian's Chromium for the applicant page's tests, at the page's main viewport (360 × 740). */

export { HAVE_CHROMIUM } from '../helpers/chromium.js';
export const PHONE = { width: 360, height: 740 };

/** A browser whose camera is Chromium's fake capture device playing `video` (a .y4m file), already allowed
 * (`--use-fake-ui-for-media-stream`); without `video`, a browser with no camera permission granted. */
export function launchBrowser(opts: { video?: string } = {}): Promise<Browser> {
  const camera = opts.video
    ? [
        '--use-fake-device-for-media-stream',
        '--use-fake-ui-for-media-stream',
        `--use-file-for-fake-video-capture=${opts.video}`,
      ]
    : [];
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_FLAGS, ...camera] });
}

let axeSource: string | undefined;

/** axe-core's serious and critical violations on the page (run by CDP evaluation: the page's CSP allows no
 * injected script tag). */
export async function axeViolations(page: Page): Promise<{ id: string; impact: string; nodes: string[] }[]> {
  axeSource ??= await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(`${axeSource};undefined`);
  const result = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: unknown[] }> } }).axe;
    return (await axe.run()).violations as {
      id: string;
      impact: string;
      nodes: { target: string[] }[];
    }[];
  });
  return result
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')) }));
}
