// bin/veriscreen face-match: real photos in, one JSON line out per input line; bad lines are error lines, not crashes.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { FACE_MATCH_THRESHOLD } from '../../identity/face/index.js';
import { runCli } from '../helpers/cli.js';
import { HAS_SHARED_DATA, sharedPath } from '../helpers/shared-data.js';

const withStdin = (args: string[], input: string) => runCli(args, { input });

describe.skipIf(!HAS_SHARED_DATA)('bin/veriscreen face-match (offline)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vs-face-match-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // issue 32 item 14: the exit status was described two ways (0 "once stdin is read" here, 1 "when a line failed" for
  // every command in the README); it is now the one rule of screen and compare: 1 when a line failed, counted on stderr
  it('answers every line in order: scores, face counts, and numbered error lines; exit status 1 with their count', async () => {
    const img = (f: string) => sharedPath('faces', 'deepface', f);
    const blank = join(dir, 'blank.png');
    writeFileSync(
      blank,
      await sharp({ create: { width: 320, height: 240, channels: 3, background: '#406080' } })
        .png()
        .toBuffer(),
    );
    const corrupt = join(dir, 'corrupt.jpg');
    writeFileSync(corrupt, Buffer.from('\xff\xd8\xff\xe0 definitely not a JPEG', 'latin1'));
    const input = [
      JSON.stringify({ ref: 'same', a: img('img20.jpg'), b: img('img21.jpg') }),
      JSON.stringify({ a: img('img20.jpg'), b: img('img40.jpg') }),
      '',
      JSON.stringify({ a: img('couple.jpg'), b: blank }),
      '{not json',
      JSON.stringify({ a: img('img20.jpg') }),
      JSON.stringify({ a: img('img20.jpg'), b: corrupt }),
      JSON.stringify({ a: join(dir, 'missing.jpg'), b: img('img20.jpg') }),
    ].join('\n');
    const r = await withStdin(['face-match'], input);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('4 of 7 pairs failed (see their "error" lines)');
    const out = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(out).toHaveLength(7);
    expect(out[0]).toMatchObject({ ref: 'same', match: true, faces_a: 1, faces_b: 1 });
    expect(out[0]?.score as number).toBeGreaterThanOrEqual(FACE_MATCH_THRESHOLD);
    expect(out[0]?.took_ms).toEqual(expect.any(Number));
    expect(out[1]).toMatchObject({ match: false, faces_a: 1, faces_b: 1 });
    expect(out[1]?.score as number).toBeLessThan(FACE_MATCH_THRESHOLD);
    expect(out[1]?.score as number).toBeGreaterThanOrEqual(0);
    // no face on one side: nothing to compare
    expect(out[2]).toMatchObject({ score: null, match: false, faces_a: 2, faces_b: 0 });
    expect(out[3]).toMatchObject({ line: 5, error: { code: 'json_invalid' } });
    expect(out[4]).toMatchObject({ line: 6, error: { code: 'validation_failed' } });
    expect(out[5]).toMatchObject({ line: 7, b: corrupt, error: { code: 'image_unreadable' } });
    expect(out[6]).toMatchObject({ line: 8, error: { code: 'file_unreadable' } });
    // every line through: 0
    const ok = await withStdin(['face-match'], input.split('\n').slice(0, 2).join('\n'));
    expect(ok.code).toBe(0);
    expect(ok.stderr).not.toContain('failed');
  }, 180_000); // two CLI runs that each load the face models: over a minute at load 27 on two cores

  it('refuses a threshold outside 0..1 before loading anything (exit status 1)', async () => {
    const r = await withStdin(['face-match', '--threshold', '2'], '');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/--threshold must be in 0\.\.1/);
  });
});
