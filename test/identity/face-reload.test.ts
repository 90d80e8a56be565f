// Closing a thread's last face analyzer frees its models; an analyzer created after that loads them again and
// works. Regression: human kept its disposed models in module state, and the next analysis crashed the process
// from inside the wasm backend.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createFaceAnalyzer } from '../../identity/face/index.js';
import { face, HAS_IDENTITY_DATA } from '../helpers/identity-images.js';

describe.skipIf(!HAS_IDENTITY_DATA)('face analyzer lifecycle', () => {
  it('analyzes the same way after the last analyzer was closed and a new one created', async () => {
    const image = readFileSync(face('img2.jpg'));
    const results = [];
    for (let i = 0; i < 2; i++) {
      const analyzer = await createFaceAnalyzer();
      results.push(await analyzer.analyze(image));
      await analyzer.close();
    }
    const [first, second] = results;
    expect(first?.faces).toHaveLength(1);
    expect(second?.error).toBeUndefined();
    expect(second?.faces.map((f) => f.pose)).toEqual(first?.faces.map((f) => f.pose));
    expect(second?.faces[0]?.liveness).toBe(first?.faces[0]?.liveness);
  });
});
