// npm run bench:identity:flow — async flows with a passport and a selfie, from the first upload to the decision:
// presigned PUTs to the (embedded) S3, verification, reading on the identity pool (OCR + faces), the document and
// selfie checks, the rules. Sequential flows: the latency one applicant sees on this machine (IDENTITY_THREADS=1).

import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { createBenchTenant, machine, ROOT, SHARED_DATA, startServer } from './harness.js';
import { load1, recordResult } from './results.js';

const FLOWS = Number(process.env.BENCH_FLOWS ?? 10);
const SPECIMEN = join(SHARED_DATA, 'documents', 'passporteye', 'tests', 'passport-td3.png');
const face = (f: string) => join(SHARED_DATA, 'faces', 'deepface', f);

/** The TD3 specimen with a deepface photo (img2) over its portrait; img4 (the same person) is the selfie. */
async function passport(): Promise<Buffer> {
  const photo = await sharp(await readFile(face('img2.jpg')))
    .extract({ left: 560, top: 170, width: 420, height: 560 })
    .resize(180, 280, { fit: 'cover' })
    .toBuffer();
  return sharp(await readFile(SPECIMEN))
    .composite([{ input: photo, left: 190, top: 270 }])
    .jpeg({ quality: 92 })
    .toBuffer();
}

type Json = Record<string, unknown>;

async function api(url: string, key: string, method: string, path: string, body?: unknown): Promise<Json> {
  const r = await fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const out = (await r.json()) as Json;
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(out)}`);
  return out;
}

async function upload(
  url: string,
  key: string,
  flowId: string,
  docType: string,
  bytes: Buffer,
): Promise<void> {
  const c = (await api(url, key, 'POST', `/v1/flows/${flowId}/documents`, { doc_type: docType })) as {
    id: string;
    upload: { url: string; headers: Record<string, string> };
  };
  const put = await fetch(c.upload.url, { method: 'PUT', headers: c.upload.headers, body: bytes });
  await put.arrayBuffer();
  await api(url, key, 'POST', `/v1/flows/${flowId}/documents/${c.id}/complete`);
}

const pct = (v: number[], p: number) => {
  const s = [...v].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? Number.NaN;
};

async function main() {
  if (![SPECIMEN, face('img2.jpg'), face('img4.jpg')].every((f) => existsSync(f))) {
    process.stderr.write(
      `bench needs ../shared/data/documents/passporteye and faces/deepface (${SHARED_DATA})\n`,
    );
    process.exit(2);
  }
  const server = await startServer({
    ingest: [{ format: 'ofac_sdn_csv', source: join(ROOT, 'ingest', 'fixtures', 'demo') }],
  });
  try {
    const key = await createBenchTenant(server);
    await api(server.url, key, 'POST', '/v1/flow_templates', {
      slug: 'kyc-id',
      name: 'Passport and selfie',
      required_checks: ['aml_screen', 'document', 'selfie'],
      required_documents: [{ min: 1, side: 'single', types: ['passport'] }],
    });
    const doc = await passport();
    const selfie = await readFile(face('img4.jpg'));
    const ms: number[] = [];
    const loadBefore = load1();
    const outcomes = new Map<string, number>();
    // one more than measured: the first flow also loads the OCR and face models on the identity thread
    for (let i = 0; i <= FLOWS; i++) {
      const f = await api(server.url, key, 'POST', '/v1/flows', {
        template_slug: 'kyc-id',
        applicant: {
          legal_name_first: 'Anna Maria',
          legal_name_last: 'Eriksson',
          dob: '1974-08-12',
          consent: { biometric: true },
        },
      });
      const id = f.id as string;
      await api(server.url, key, 'POST', `/v1/flows/${id}/process`);
      const started = performance.now();
      await upload(server.url, key, id, 'passport', doc);
      await upload(server.url, key, id, 'selfie', selfie);
      let status = '';
      let codes: string[] = [];
      for (;;) {
        const g = await api(server.url, key, 'GET', `/v1/flows/${id}`);
        status = g.status as string;
        codes = g.decision_reason_codes as string[];
        if (!['PENDING', 'AWAITING_INPUT', 'PROCESSING'].includes(status)) break;
        if (performance.now() - started > 300_000) throw new Error(`flow ${id} undecided after 300 s`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const took = performance.now() - started;
      if (i === 0) {
        process.stdout.write(
          `first flow (models loading): ${Math.round(took)} ms → ${status} ${codes.join(',')}\n`,
        );
        continue;
      }
      ms.push(took);
      const k = `${status} [${codes.join(',')}]`;
      outcomes.set(k, (outcomes.get(k) ?? 0) + 1);
    }
    process.stdout.write(
      `\n${new Date().toISOString()} — ${machine()}\n` +
        `${FLOWS} sequential async flows (passport + selfie), upload start → decision, IDENTITY_THREADS=1:\n` +
        `p50 ${Math.round(pct(ms, 50))} ms, p99 ${Math.round(pct(ms, 99))} ms, min ${Math.round(Math.min(...ms))} ms, max ${Math.round(Math.max(...ms))} ms\n` +
        `outcomes: ${[...outcomes].map(([k, n]) => `${n} × ${k}`).join('; ')}\n`,
    );
    recordResult(
      'identity:flow',
      {
        p50_ms: {
          label: `passport + selfie flow, upload start → decision, p50 (${ms.length} flows)`,
          unit: 'ms',
          value: Math.round(pct(ms, 50)),
        },
        p99_ms: { label: 'the same, p99', unit: 'ms', value: Math.round(pct(ms, 99)) },
      },
      { loadBefore },
    );
  } finally {
    await server.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
