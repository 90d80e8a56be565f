import type { TenantCreatedOut, TenantCreateIn } from '../../schemas/tenants.js';
import { generateKey } from '../auth/keys.js';
import { type Sql, transaction } from '../db/sql.js';
import { invalid } from '../errors.js';
import { DEFAULT_TEMPLATE } from '../templates/template-store.js';

const DEFAULT_SELF_SERVE_ALLOWANCE = 250;

interface TenantRow {
  id: string;
  name: string;
  plan: 'self_serve' | 'contract';
  status: 'active' | 'pending_verification' | 'suspended';
  allowance: number | null;
  allowed_origins: string[];
  created_at: Date;
}

/** Creates a tenant with one secret and one publishable key and its default flow template, atomically. */
export async function createTenant(
  sql: Sql,
  input: TenantCreateIn,
  opts: { is_demo?: boolean } = {},
): Promise<TenantCreatedOut> {
  const plan = input.plan ?? 'contract';
  if (plan === 'contract' && input.allowance !== undefined) {
    throw invalid(
      ['body', 'allowance'],
      'allowance applies only to self_serve tenants (contract tenants are unmetered)',
    );
  }
  const allowance = plan === 'self_serve' ? (input.allowance ?? DEFAULT_SELF_SERVE_ALLOWANCE) : null;
  const secret = generateKey('secret');
  const publishable = generateKey('publishable');
  const tenant = await transaction(sql, async (tx) => {
    const [row] = await tx<TenantRow[]>`
      insert into tenants (name, plan, status, allowance, allowed_origins, is_demo)
      values (${input.name}, ${plan}, ${input.status ?? 'active'}, ${allowance}, ${input.allowed_origins ?? []}, ${opts.is_demo ?? false})
      returning id, name, plan, status, allowance, allowed_origins, created_at`;
    if (!row) throw new Error('tenant insert returned nothing');
    await tx`
      insert into api_keys (tenant_id, kind, key_hash, key_prefix) values
        (${row.id}, 'secret', ${secret.hash}, ${secret.prefix}),
        (${row.id}, 'publishable', ${publishable.hash}, ${publishable.prefix})`;
    await tx`
      insert into flow_templates (tenant_id, slug, name, description, required_checks)
      values (${row.id}, ${DEFAULT_TEMPLATE.slug}, ${DEFAULT_TEMPLATE.name}, ${DEFAULT_TEMPLATE.description}, ${DEFAULT_TEMPLATE.required_checks})`;
    return row;
  });
  return {
    id: tenant.id,
    name: tenant.name,
    plan: tenant.plan,
    status: tenant.status,
    allowance: tenant.allowance,
    allowed_origins: tenant.allowed_origins,
    secret_key: secret.key,
    publishable_key: publishable.key,
    created_at: tenant.created_at.toISOString(),
  };
}

/** Replaces a tenant's keys with fresh ones (the demo tenant on each development start). */
export async function rotateKeys(
  sql: Sql,
  tenantId: string,
): Promise<{ secret_key: string; publishable_key: string }> {
  const secret = generateKey('secret');
  const publishable = generateKey('publishable');
  await transaction(sql, async (tx) => {
    await tx`update api_keys set revoked_at = now() where tenant_id = ${tenantId} and revoked_at is null`;
    await tx`
      insert into api_keys (tenant_id, kind, key_hash, key_prefix) values
        (${tenantId}, 'secret', ${secret.hash}, ${secret.prefix}),
        (${tenantId}, 'publishable', ${publishable.hash}, ${publishable.prefix})`;
  });
  return { secret_key: secret.key, publishable_key: publishable.key };
}
