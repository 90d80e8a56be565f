import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/shared-data.js';
import { call, createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/test-app.js';

// Issue 16, "OpenAPI a client generator loves": the server's own /openapi.json passes `redocly lint` with no
// warning, openapi-typescript generates named types from it, and a client program written with openapi-fetch
// (test/openapi-client/program.ts) typechecks against those types and runs against this server.

const CLIENT_DIR = join(REPO_ROOT, 'test', 'openapi-client');
const bin = (name: string) => join(REPO_ROOT, 'node_modules', '.bin', name);

function run(cmd: string, args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        REDOCLY_TELEMETRY: 'off',
        REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
        NO_COLOR: '1',
      },
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

/** What test/openapi-client/program.ts exports (as seen from here, without its generated types). */
interface ClientProgram {
  run(
    baseUrl: string,
    keys: { secret: string; publishable: string; origin: string },
  ): Promise<{
    flow: {
      id: string;
      applicant_id: string;
      execution_mode: string;
      status: string;
      decision: string | null;
    };
    applicant: { id: string };
    fetched: { id: string };
    checks: { flow_id: string | null }[];
    missingCode: string;
    missingStatus: number;
    endpoint: { signing_secret: string };
    redacted: Record<string, unknown>;
    redactedType: string | null;
  }>;
  onFlowCompleted(event: unknown): string;
}

let t: TestApp;
let acme: Tenant;
let doc: Record<string, unknown>;
let dir: string;

beforeAll(async () => {
  t = await startTestApp();
  acme = await createTenant(t, { name: 'Acme', allowed_origins: ['https://shop.example'] });
  doc = (await call<Record<string, unknown>>(t.url, 'GET', '/openapi.json')).body;
  dir = await mkdtemp(join(tmpdir(), 'vs-openapi-'));
});
afterAll(async () => {
  await t?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface Op {
  operationId: string;
  security: Record<string, string[]>[];
  parameters?: { in: string }[];
  requestBody?: unknown;
  responses: Record<
    string,
    { description: string; headers?: Record<string, unknown>; content?: Record<string, { schema: unknown }> }
  >;
}

describe('/openapi.json for client generators', () => {
  it('documents every status an operation can answer, from its route metadata', () => {
    const paths = doc.paths as Record<string, Record<string, Op>>;
    const ops = Object.values(paths).flatMap((p) => Object.values(p));
    expect(ops.length).toBeGreaterThan(40);
    for (const op of ops) {
      const statuses = Object.keys(op.responses);
      const must = ['405', '422', '503', 'default'];
      if (op.security.length) must.push('401');
      if (op.security.some((s) => 'secretKey' in s || 'operatorSession' in s)) must.push('403');
      if (op.parameters?.some((p) => p.in === 'path')) must.push('404');
      if (op.requestBody) must.push('413', '415');
      expect(statuses, op.operationId).toEqual(expect.arrayContaining(must));
      for (const [status, r] of Object.entries(op.responses)) {
        if (Number(status) >= 400 || status === 'default') {
          expect(r.content?.['application/json'], `${op.operationId} ${status}`).toBeDefined();
        }
      }
    }
    // the operator session cookie is a security scheme, and the only one of the session routes
    const schemes = (doc.components as { securitySchemes: Record<string, Record<string, string>> })
      .securitySchemes;
    expect(schemes.operatorSession).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'vs_session' });
    expect(paths['/v1/sessions/current']?.get?.security).toEqual([{ operatorSession: [] }]);
    expect(paths['/v1/flows']?.get?.security).toEqual([{ secretKey: [] }, { operatorSession: [] }]);
    // the rate-limited, metered POST /v1/flows: 402 with the allowance body, 429; one media type per credential
    const create = paths['/v1/flows']?.post as Op;
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['402', '429']));
    expect(create.responses['429']?.headers).toEqual({
      'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
      'Retry-After': { $ref: '#/components/headers/Retry-After' },
      RateLimit: { $ref: '#/components/headers/RateLimit' },
      'RateLimit-Policy': { $ref: '#/components/headers/RateLimit-Policy' },
    });
    expect(create.responses['201']?.headers).toEqual({
      'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
      RateLimit: { $ref: '#/components/headers/RateLimit' },
      'RateLimit-Policy': { $ref: '#/components/headers/RateLimit-Policy' },
    });
    expect(create.responses['201']?.content).toEqual({
      'application/json': { schema: { $ref: '#/components/schemas/Flow' } },
      'application/vnd.veriscreen.redacted-flow+json': {
        schema: { $ref: '#/components/schemas/RedactedFlow' },
      },
    });
  });

  it('passes redocly lint (recommended rules) with 0 errors and 0 warnings', async () => {
    const file = join(dir, 'openapi.json');
    await writeFile(file, JSON.stringify(doc));
    const r = await run(bin('redocly'), ['lint', file, '--format=json']);
    const start = r.out.indexOf('{');
    const report = JSON.parse(r.out.slice(start, r.out.lastIndexOf('}') + 1)) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; message: string; location: { pointer: string }[] }[];
    };
    const problems = report.problems.map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 60_000);

  it("the README's typed-client snippet typechecks under module nodenext against the generated types", async () => {
    // issue 32 item 13: the snippet imported './veriscreen' without an extension, which nodenext refuses
    const readme = await readFile(join(REPO_ROOT, 'README.md'), 'utf8');
    const snippet = /### A typed client[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(snippet).toContain("from 'openapi-fetch'");
    const generate = /npx openapi-typescript \S+ -o (\S+)\.d\.ts/.exec(readme)?.[1];
    expect(generate).toBe('veriscreen');
    // under the repository (.tmp, ignored) so that openapi-fetch resolves from its node_modules
    const at = join(REPO_ROOT, '.tmp', 'readme-client');
    await mkdir(at, { recursive: true });
    await writeFile(join(at, `${generate}.d.ts`), astToString(await openapiTS(doc as never)));
    await writeFile(join(at, 'readme-snippet.ts'), `export {};\n${snippet}`);
    const tsc = await run(bin('tsc'), [
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--target',
      'es2022',
      '--strict',
      '--noEmit',
      '--skipLibCheck',
      '--types',
      'node',
      join(at, 'readme-snippet.ts'),
    ]);
    expect(tsc.out).toBe('');
    expect(tsc.code).toBe(0);
  }, 90_000);

  it('gives openapi-typescript named types, and an openapi-fetch program typechecks and runs', async () => {
    const types = astToString(await openapiTS(doc as never));
    for (const name of [
      'Flow',
      'RedactedFlow',
      'Applicant',
      'Check',
      'Document',
      'Error',
      'HTTPValidationError',
    ]) {
      expect(types).toContain(`    ${name}: {`);
    }
    // a flow's documents are named Document objects, not maps of unknown
    expect(
      (doc as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } }).components
        .schemas.Flow?.properties.documents,
    ).toEqual({ type: 'array', items: { $ref: '#/components/schemas/Document' } });
    // the generated file sits next to the program (not committed: see .gitignore)
    await writeFile(join(CLIENT_DIR, 'api.d.ts'), types);
    const tsc = await run(bin('tsc'), ['-p', join(CLIENT_DIR, 'tsconfig.json')]);
    expect(tsc.out).toBe('');
    expect(tsc.code).toBe(0);

    // imported by path, so that the repository's own typecheck (which cannot see the generated types on a clean
    // clone) does not follow it; tsc above has checked it
    const program = (await import(join(CLIENT_DIR, 'program.ts'))) as ClientProgram;
    const seen = await program.run(t.url, {
      secret: acme.secret_key,
      publishable: acme.publishable_key,
      origin: 'https://shop.example',
    });
    expect(seen.flow.execution_mode).toBe('sync');
    expect(seen.applicant.id).toBe(seen.flow.applicant_id);
    expect(seen.fetched.id).toBe(seen.flow.id);
    expect(seen.checks.map((c) => c.flow_id)).toContain(seen.flow.id);
    expect(seen.missingStatus).toBe(404);
    expect(seen.missingCode).toBe('not_found');
    expect(seen.endpoint.signing_secret).toMatch(/^whsec_/);
    expect(Object.keys(seen.redacted).sort()).toEqual(['id', 'reason_codes', 'result']);
    expect(seen.redactedType).toBe('application/vnd.veriscreen.redacted-flow+json');
    expect(
      program.onFlowCompleted({
        id: 'evt_1',
        type: 'flow.completed',
        created_at: '2026-11-23T00:00:00Z',
        data: {
          flow_id: seen.flow.id,
          applicant_id: seen.flow.applicant_id,
          status: seen.flow.status,
          decision: seen.flow.decision,
          decision_reason_codes: [],
        },
      }),
    ).toBe(`flow.completed ${seen.flow.id} ${seen.flow.status}`);
  }, 90_000);
});
