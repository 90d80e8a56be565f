import type { OperatorCreateIn, OperatorOut, OperatorPatchIn } from '../../schemas/operators.js';
import { actorOf, writeAudit } from '../audit/audit.js';
import type { OperatorRole, Principal } from '../auth/principal.js';
import { page, pageArgs } from '../db/cursor.js';
import { type Sql, transaction } from '../db/sql.js';
import { AlreadyExists, NotFound, NotPermitted } from '../domain-errors.js';
import { hashPassword } from './password.js';

export interface OperatorRow {
  id: string;
  tenant_id: string;
  seq: string;
  email: string;
  name: string;
  role: OperatorRole;
  password_hash: string;
  disabled_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export function operatorOut(o: OperatorRow): OperatorOut {
  return {
    id: o.id,
    email: o.email,
    name: o.name,
    role: o.role,
    disabled: o.disabled_at !== null,
    created_at: o.created_at.toISOString(),
    updated_at: o.updated_at.toISOString(),
  };
}

export async function createOperator(
  sql: Sql,
  principal: Principal,
  tenantId: string,
  input: OperatorCreateIn,
  requestId: string,
): Promise<OperatorOut> {
  const passwordHash = await hashPassword(input.password);
  try {
    return await transaction(sql, async (tx) => {
      const [o] = await tx<OperatorRow[]>`
        insert into operators (tenant_id, email, name, role, password_hash)
        values (${tenantId}, ${input.email.trim().toLowerCase()}, ${input.name}, ${input.role}, ${passwordHash})
        returning *`;
      if (!o) throw new Error('operator insert returned nothing');
      await writeAudit(tx, {
        tenant_id: tenantId,
        ...actorOf(principal),
        action: 'operator.created',
        resource_type: 'operator',
        resource_id: o.id,
        request_id: requestId,
        details: { role: o.role },
      });
      return operatorOut(o);
    });
  } catch (err) {
    if ((err as { code?: string }).code === '23505') {
      throw new AlreadyExists('An operator with this e-mail exists in the tenant');
    }
    throw err;
  }
}

export async function listOperators(
  sql: Sql,
  tenantId: string,
  query: { role?: OperatorRole | undefined; limit?: number | undefined; after?: string | undefined },
) {
  const { limit, after } = pageArgs(query);
  const rows = await sql<OperatorRow[]>`
    select * from operators where tenant_id = ${tenantId}
      ${query.role ? sql`and role = ${query.role}` : sql``}
      ${after ? sql`and seq < ${after}` : sql``}
    order by seq desc limit ${limit + 1}`;
  const p = page(rows, limit);
  return { items: p.rows.map(operatorOut), next_cursor: p.next_cursor };
}

/** Id, name and role of every operator of a tenant, by name (a tenant has tens of operators, not thousands). */
export async function listOperatorNames(sql: Sql, tenantId: string) {
  return sql<{ id: string; name: string; role: OperatorRole; disabled: boolean }[]>`
    select id, name, role, disabled_at is not null as disabled from operators where tenant_id = ${tenantId} order by name, id`;
}

/** Changes an operator (admin authority). Disabling or a new password revokes every open session of the operator in
 * the same transaction; an admin cannot disable or demote themselves (the tenant would risk losing its last admin). */
export async function updateOperator(
  sql: Sql,
  principal: Principal,
  tenantId: string,
  operatorId: string,
  input: OperatorPatchIn,
  requestId: string,
): Promise<OperatorOut> {
  const self = principal.kind === 'operator' && principal.operator_id === operatorId;
  if (self && (input.disabled === true || (input.role !== undefined && input.role !== 'admin'))) {
    throw new NotPermitted('forbidden', 'An admin cannot disable or demote themselves');
  }
  const passwordHash = input.password ? await hashPassword(input.password) : null;
  return transaction(sql, async (tx) => {
    const [o] = await tx<OperatorRow[]>`
      update operators set
        name = coalesce(${input.name ?? null}, name),
        role = coalesce(${input.role ?? null}, role),
        password_hash = coalesce(${passwordHash}, password_hash),
        disabled_at = case when ${input.disabled ?? null}::boolean is null then disabled_at
                           when ${input.disabled ?? null}::boolean then coalesce(disabled_at, now())
                           else null end,
        updated_at = now()
      where id = ${operatorId} and tenant_id = ${tenantId}
      returning *`;
    if (!o) throw new NotFound('Operator');
    const revoke = input.disabled === true || passwordHash !== null || input.role !== undefined;
    if (revoke) {
      // a role change also signs the operator out: sessions carry the role they were opened with
      await tx`update operator_sessions set revoked_at = now() where operator_id = ${o.id} and revoked_at is null`;
    }
    await writeAudit(tx, {
      tenant_id: tenantId,
      ...actorOf(principal),
      action: 'operator.updated',
      resource_type: 'operator',
      resource_id: o.id,
      request_id: requestId,
      // field names only: never the password
      details: { fields: Object.keys(input).sort(), sessions_revoked: revoke },
    });
    return operatorOut(o);
  });
}
