import { randomBytes } from 'node:crypto';
import { createApp } from '../app.js';
import { loadConfig } from '../config.js';
import { loadDemoDataset } from '../datasets/lifecycle.js';
import type { Sql } from '../db/sql.js';
import { hashPassword } from '../operators/password.js';
import { createTenant, rotateKeys } from '../tenants/tenant-service.js';

export async function serve(_argv: string[]): Promise<number> {
  const config = loadConfig();
  const app = await createApp(config);
  const { sql, log } = app;

  let demo: { id: string; secret_key: string; publishable_key: string } | undefined;
  let operators: { email: string; role: string; password: string }[] = [];
  if (config.NODE_ENV === 'development' && config.DEMO) {
    const loaded = await loadDemoDataset(app);
    if (loaded)
      log.info({ version: loaded.id, entities: loaded.stats.entities }, 'demo dataset loaded and promoted');
    const [existing] = await sql<
      { id: string }[]
    >`select id from tenants where is_demo order by created_at limit 1`;
    if (existing) {
      // keys are stored hashed, so the demo tenant gets fresh ones each development start
      demo = { id: existing.id, ...(await rotateKeys(sql, existing.id)) };
    } else {
      const t = await createTenant(
        sql,
        { name: 'Demo tenant', plan: 'contract', allowed_origins: ['http://localhost:3000'] },
        { is_demo: true },
      );
      demo = { id: t.id, secret_key: t.secret_key, publishable_key: t.publishable_key };
    }
  }

  if (demo) operators = await demoOperators(app.sql, demo.id);
  await app.loadActiveDataset();
  await app.startBackground();
  const port = await app.listen(config.HOST, config.PORT).catch(async (err: unknown) => {
    // a taken port (another serve?) ends the start: nothing of this process may keep running
    await app.shutdown();
    throw err;
  });
  const url = `http://${config.HOST}:${port}`;
  // stdout carries JSON log lines only (jq, log collectors); the human banner with its secrets is a development
  // convenience on stderr, never printed in production
  // whatever LOG_LEVEL says, the one start line is logged (scripts and operators wait for it)
  log
    .child({}, { level: 'info' })
    .info({ url, openapi: `${url}/openapi.json`, metrics: `${url}/metrics` }, `listening on ${url}`);
  if (config.NODE_ENV === 'development') {
    process.stderr.write(
      `${banner(url, config.admin_token_generated ? config.ADMIN_TOKEN : null, demo, operators)}\n`,
    );
  } else if (config.admin_token_generated) {
    log.warn('admin token generated for this run and not shown: set ADMIN_TOKEN to use the admin API');
  }

  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      log.info({ signal }, 'shutting down');
      app.shutdown().then(resolve, (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        resolve();
      });
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  log.info('stopped');
  return 0;
}

/** One demo operator per role; like the demo keys, their passwords are new on each development start. */
async function demoOperators(
  sql: Sql,
  tenantId: string,
): Promise<{ email: string; role: string; password: string }[]> {
  const out: { email: string; role: string; password: string }[] = [];
  for (const role of ['admin', 'supervisor', 'analyst'] as const) {
    const email = `${role}@demo.veriscreen.test`;
    const password = randomBytes(9).toString('base64url');
    const hash = await hashPassword(password);
    await sql`
      insert into operators (tenant_id, email, name, role, password_hash)
      values (${tenantId}, ${email}, ${`Demo ${role}`}, ${role}, ${hash})
      on conflict (tenant_id, lower(email)) do update set password_hash = excluded.password_hash, disabled_at = null`;
    out.push({ email, role, password });
  }
  return out;
}

/** The development banner: where it listens, the generated admin token, the demo tenant's keys and operators. */
function banner(
  url: string,
  generatedAdminToken: string | null,
  demo: { id: string; secret_key: string; publishable_key: string } | undefined,
  operators: { email: string; role: string; password: string }[],
): string {
  const lines = [
    '',
    `Veriscreen listening on ${url}  (OpenAPI: ${url}/openapi.json, metrics: ${url}/metrics)`,
    generatedAdminToken
      ? `  admin token (generated for this run; set ADMIN_TOKEN to fix it): ${generatedAdminToken}`
      : '  admin token: set by ADMIN_TOKEN (not printed)',
  ];
  if (demo) {
    lines.push(
      `  demo tenant ${demo.id}`,
      `    secret key:      ${demo.secret_key}`,
      `    publishable key: ${demo.publishable_key}  (origin http://localhost:3000)`,
      `  dashboard: ${url}/dashboard/?tenant=${demo.id}`,
      ...operators.map((o) => `    ${o.role.padEnd(10)} ${o.email}  password: ${o.password}`),
      `  try: curl -s ${url}/v1/flows -H "Authorization: Bearer ${demo.secret_key}" -H 'content-type: application/json' \\`,
      `         -d '{"mode":"sync","applicant":{"legal_name_first":"Ivan","legal_name_last":"Demovsky"}}'`,
    );
  }
  return `${lines.join('\n')}\n`;
}
