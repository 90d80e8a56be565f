import { useState } from 'preact/hooks';
import { AML_DATASET_VALUES } from '../../../schemas/aml-datasets.js';
import type { CheckPolicyIn } from '../../../schemas/policy.js';
import {
  ApiFailure,
  type CheckPolicyOut,
  createOperator,
  getPolicy,
  listOperators,
  type OperatorOut,
  patchOperator,
  putPolicy,
  type Role,
} from '../api';
import { fmtTime, humanize } from '../format';
import {
  Badge,
  Confirm,
  can,
  ErrorBox,
  FormToggle,
  issueAt,
  ListTable,
  Loading,
  Notice,
  PageHeader,
  TextField,
  useAction,
  useAsync,
  useFocusHeading,
  useSession,
} from '../ui';

interface PolicyForm {
  default_datasets: string[];
  four_eyes_required: boolean;
  fatf_black_handling: string;
  fatf_grey_handling: string;
  vpn_policy: string;
  blocked_countries: string;
  device_velocity_threshold: string;
  face_match_threshold: string;
  liveness_review_threshold: string;
  aml: string;
}

function toForm(p: CheckPolicyOut): PolicyForm {
  return {
    default_datasets: [...p.default_datasets],
    four_eyes_required: p.four_eyes_required,
    fatf_black_handling: p.fatf_black_handling,
    fatf_grey_handling: p.fatf_grey_handling,
    vpn_policy: p.vpn_policy,
    blocked_countries: p.blocked_countries.join(', '),
    device_velocity_threshold: String(p.device_velocity_threshold),
    face_match_threshold: String(p.face_match_threshold),
    liveness_review_threshold: String(p.liveness_review_threshold),
    aml: JSON.stringify(p.aml_match_policy, null, 2),
  };
}

/** The PUT body of the form (the AML match policy already parsed from its JSON). */
function policyBody(f: PolicyForm, aml: unknown): CheckPolicyIn {
  return {
    default_datasets: f.default_datasets,
    four_eyes_required: f.four_eyes_required,
    fatf_black_handling: f.fatf_black_handling,
    fatf_grey_handling: f.fatf_grey_handling,
    vpn_policy: f.vpn_policy,
    blocked_countries: f.blocked_countries
      .split(/[\s,]+/)
      .map((c) => c.trim().toUpperCase())
      .filter(Boolean),
    device_velocity_threshold: Number(f.device_velocity_threshold),
    face_match_threshold: Number(f.face_match_threshold),
    liveness_review_threshold: Number(f.liveness_review_threshold),
    aml_match_policy: aml,
  } as CheckPolicyIn;
}

/** The policy's handling settings: FATF lists, VPN traffic, thresholds, blocked countries. */
function PolicySettings(props: {
  f: PolicyForm;
  set: <K extends keyof PolicyForm>(k: K, v: PolicyForm[K]) => void;
  issueFor: (field: string) => string;
}) {
  const { f, set, issueFor } = props;
  return (
    <div class="form-grid">
      <div class="field">
        <label for="pol-black">FATF black list countries</label>
        <select
          id="pol-black"
          value={f.fatf_black_handling}
          onChange={(e) => set('fatf_black_handling', e.currentTarget.value)}
        >
          <option value="flag">flag</option>
          <option value="block">block</option>
        </select>
      </div>
      <div class="field">
        <label for="pol-grey">FATF grey list countries</label>
        <select
          id="pol-grey"
          value={f.fatf_grey_handling}
          onChange={(e) => set('fatf_grey_handling', e.currentTarget.value)}
        >
          <option value="ignore">ignore</option>
          <option value="flag">flag</option>
        </select>
      </div>
      <div class="field">
        <label for="pol-vpn">VPN / proxy traffic</label>
        <select id="pol-vpn" value={f.vpn_policy} onChange={(e) => set('vpn_policy', e.currentTarget.value)}>
          <option value="allow">allow</option>
          <option value="review">review</option>
          <option value="block">block</option>
        </select>
      </div>
      <TextField
        id="pol-velocity"
        label="Device velocity threshold"
        type="number"
        min={1}
        value={f.device_velocity_threshold}
        onValue={(v) => set('device_velocity_threshold', v)}
        issue={issueFor('device_velocity_threshold')}
      />
      {(
        [
          ['pol-face', 'Face match threshold (selfie)', 'face_match_threshold'],
          ['pol-liveness', 'Liveness review threshold (advisory)', 'liveness_review_threshold'],
        ] as const
      ).map(([id, label, k]) => (
        <TextField
          key={id}
          id={id}
          label={label}
          type="number"
          min={0}
          max={1}
          step={0.01}
          value={f[k]}
          onValue={(v) => set(k, v)}
          issue={issueFor(k)}
        />
      ))}
      <TextField
        id="pol-blocked"
        label="Blocked countries (ISO codes)"
        wide
        value={f.blocked_countries}
        onValue={(v) => set('blocked_countries', v)}
        issue={issueFor('blocked_countries')}
      />
    </div>
  );
}

export function AdminPolicy() {
  const policy = useAsync(getPolicy, []);
  const [form, setForm] = useState<PolicyForm | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useFocusHeading('policy');

  if (policy.loading && !policy.data) return <Loading label="Loading the check policy…" />;
  if (policy.error || !policy.data) return <ErrorBox error={policy.error} />;
  const f = form ?? toForm(policy.data);
  const set = <K extends keyof PolicyForm>(k: K, v: PolicyForm[K]) => setForm({ ...f, [k]: v });
  const issues = error instanceof ApiFailure ? error.issues : [];
  const issueFor = (field: string) =>
    issues
      .filter((i) => i.loc[0] === 'body' && i.loc[1] === field)
      .map((i) => `${i.loc.slice(2).join('.') || field}: ${i.msg}`)
      .join('; ');

  const save = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    let aml: unknown;
    try {
      aml = JSON.parse(f.aml);
    } catch (err) {
      setError(new Error(`AML match policy is not valid JSON: ${(err as Error).message}`));
      return;
    }
    const body = policyBody(f, aml);
    setBusy(true);
    try {
      policy.set(await putPolicy(body));
      setForm(null);
      setNotice('Saved: new flows use the new policy version');
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="page-title">
      <PageHeader title="Check policy">
        <span class="muted">
          version <code>{policy.data.policy_version}</code>
        </span>
      </PageHeader>
      <Notice text={notice} onClose={() => setNotice(null)} />
      <ErrorBox error={error} title="The policy was not saved" />
      <form class="card stack" onSubmit={save} aria-labelledby="page-title">
        <fieldset class="checks-inline">
          <legend>Default datasets</legend>
          {AML_DATASET_VALUES.map((d) => (
            <label key={d}>
              <input
                type="checkbox"
                checked={f.default_datasets.includes(d)}
                onChange={(e) =>
                  set(
                    'default_datasets',
                    e.currentTarget.checked
                      ? [...f.default_datasets, d]
                      : f.default_datasets.filter((x) => x !== d),
                  )
                }
              />
              {humanize(d)}
            </label>
          ))}
        </fieldset>
        {issueFor('default_datasets') && <p class="error-text">{issueFor('default_datasets')}</p>}
        <label class="inline">
          <input
            type="checkbox"
            checked={f.four_eyes_required}
            onChange={(e) => set('four_eyes_required', e.currentTarget.checked)}
          />
          Four-eyes: alert dispositions need a second operator’s approval
        </label>
        <PolicySettings f={f} set={set} issueFor={issueFor} />
        <label for="pol-aml">AML match policy (JSON)</label>
        <textarea
          id="pol-aml"
          class="mono"
          rows={14}
          value={f.aml}
          onInput={(e) => set('aml', e.currentTarget.value)}
          aria-invalid={!!issueFor('aml_match_policy')}
        />
        {issueFor('aml_match_policy') && <p class="error-text">{issueFor('aml_match_policy')}</p>}
        <div class="row-actions">
          <button type="submit" class="btn btn-primary" disabled={busy}>
            Save policy
          </button>
          <button type="button" class="btn" disabled={!form} onClick={() => setForm(null)}>
            Discard changes
          </button>
        </div>
      </form>
    </section>
  );
}

/** The operator roles (schemas/operators.ts), checked both ways at compile time. */
const ROLES = ['analyst', 'supervisor', 'admin'] as const satisfies readonly Role[];
type MissingRole = Exclude<Role, (typeof ROLES)[number]>;
const _allRoles: [MissingRole] extends [never] ? true : MissingRole = true;
void _allRoles;
const withArticle = (role: Role) => `${/^[aeiou]/.test(role) ? 'an' : 'a'} ${role}`;

function RoleSelect({
  id,
  value,
  onValue,
  disabled,
  label,
}: {
  id: string;
  value: Role;
  onValue: (r: Role) => void;
  disabled?: boolean;
  /** an accessible name when no <label for> names the select */
  label?: string;
}) {
  return (
    <select
      id={id}
      value={value}
      disabled={disabled}
      aria-label={label}
      onChange={(e) => onValue(e.currentTarget.value as Role)}
    >
      {ROLES.map((r) => (
        <option key={r} value={r}>
          {r}
        </option>
      ))}
    </select>
  );
}

function NewOperator({ onCreated }: { onCreated: (o: OperatorOut) => void }) {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('analyst');
  const [password, setPassword] = useState('');
  const { busy, error, run } = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    return run(async () =>
      onCreated(await createOperator({ name: name.trim(), email: email.trim(), role, password })),
    );
  };
  return (
    <form class="card stack" onSubmit={submit} aria-labelledby="h-new-operator">
      <h2 id="h-new-operator">New operator</h2>
      <TextField
        id="op-name"
        label="Name"
        required
        maxLength={200}
        value={name}
        onValue={setName}
        issue={issueAt(error, 'name')}
      />
      <TextField
        id="op-email"
        label="E-mail"
        type="email"
        required
        maxLength={254}
        value={email}
        onValue={setEmail}
        issue={issueAt(error, 'email')}
      />
      <div class="field">
        <label for="op-role">Role</label>
        <RoleSelect id="op-role" value={role} onValue={setRole} />
      </div>
      <TextField
        id="op-password"
        label="Initial password (at least 12 characters)"
        type="password"
        autocomplete="new-password"
        required
        minLength={12}
        maxLength={256}
        value={password}
        onValue={setPassword}
        issue={issueAt(error, 'password')}
      />
      <p class="muted small">
        Give the password to the operator through another channel; an admin can reset it later.
      </p>
      <ErrorBox error={error} title="The operator was not created" />
      <div class="row-actions">
        <button type="submit" class="btn btn-primary" disabled={busy}>
          Create operator
        </button>
      </div>
    </form>
  );
}

export function AdminOperators() {
  const session = useSession();
  const list = useAsync(listOperators, []);
  const [target, setTarget] = useState<OperatorOut | null>(null);
  const { busy, error, setError, run } = useAction();
  const [notice, setNotice] = useState<string | null>(null);
  useFocusHeading('operators');
  const mayUpdate = can(session, 'updateOperator', 'PATCH');
  const mayCreate = can(session, 'createOperator', 'POST');
  const [creating, setCreating] = useState(false);

  const setDisabled = (o: OperatorOut, disabled: boolean) =>
    run(async () => {
      const next = await patchOperator(o.id, { disabled });
      setNotice(
        next.disabled
          ? `${next.name} is disabled and signed out everywhere`
          : `${next.name} can sign in again`,
      );
      setTarget(null);
      list.reload();
    });
  const setRole = (o: OperatorOut, role: Role) =>
    run(async () => {
      const next = await patchOperator(o.id, { role });
      setNotice(`${next.name} is now ${withArticle(next.role)} (signed out to pick it up)`);
      list.reload();
    });

  return (
    <section aria-labelledby="page-title">
      <PageHeader title="Operators">
        {mayCreate && (
          <FormToggle open={creating} label="Add an operator" onToggle={() => setCreating(!creating)} />
        )}
      </PageHeader>
      {creating && (
        <NewOperator
          onCreated={(o) => {
            setCreating(false);
            setNotice(`${o.name} can now sign in as ${withArticle(o.role)}`);
            list.reload();
          }}
        />
      )}
      <Notice text={notice} onClose={() => setNotice(null)} />
      {!target && <ErrorBox error={error} title="The change was refused" />}
      <ListTable
        list={list}
        empty="No operators."
        columns={['Name', 'E-mail', 'Role', 'State', 'Created']}
        actions
        row={(o) => (
          <tr key={o.id} data-operator-id={o.id}>
            <td>{o.name}</td>
            <td>{o.email}</td>
            <td>
              {mayUpdate && o.id !== session.operator.id ? (
                <RoleSelect
                  id={`role-${o.id}`}
                  value={o.role}
                  disabled={busy}
                  onValue={(r) => setRole(o, r)}
                  label={`Role of ${o.name}`}
                />
              ) : (
                <span class={`badge badge-role-${o.role}`}>{o.role}</span>
              )}
            </td>
            <td>
              <Badge value={o.disabled ? 'disabled' : 'enabled'} />
            </td>
            <td>{fmtTime(o.created_at)}</td>
            <td>
              {mayUpdate &&
                o.id !== session.operator.id &&
                (o.disabled ? (
                  <button
                    type="button"
                    class="btn btn-small"
                    disabled={busy}
                    onClick={() => setDisabled(o, false)}
                  >
                    Enable
                  </button>
                ) : (
                  <button
                    type="button"
                    class="btn btn-small btn-danger"
                    onClick={() => {
                      setError(undefined);
                      setTarget(o);
                    }}
                  >
                    Disable
                  </button>
                ))}
              {o.id === session.operator.id && <span class="muted small">you</span>}
            </td>
          </tr>
        )}
      />
      <Confirm
        open={target !== null}
        title={`Disable ${target?.name ?? ''}?`}
        confirmLabel="Disable"
        danger
        busy={busy}
        onConfirm={() => target && setDisabled(target, true)}
        onCancel={() => setTarget(null)}
      >
        <p>
          <strong>{target?.name}</strong> ({target?.email}) is signed out everywhere at once and cannot sign
          in until an admin enables them again.
        </p>
        {target && <ErrorBox error={error} title="The change was refused" />}
      </Confirm>
    </section>
  );
}
