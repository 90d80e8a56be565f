import { useEffect, useState } from 'preact/hooks';
import type { OperatorNameOut } from '../../schemas/operators.js';
import { listOperatorNames, type Session } from './api';
import { shortId } from './format';

/**
 * People's names instead of ids wherever an operator is shown (assignee, proposer, approver, reviewer, history):
 * GET /v1/operator_names, read once per tenant session and shared by every screen.
 */
export type Directory = Map<string, OperatorNameOut>;
let cached: { key: string; names: Promise<Directory> } | null = null;

function load(key: string): Promise<Directory> {
  if (cached?.key !== key) {
    const names = listOperatorNames().then((p) => new Map(p.items.map((o) => [o.id, o])));
    // a failed read is tried again by the next screen instead of being remembered
    names.catch(() => {
      if (cached?.names === names) cached = null;
    });
    cached = { key, names };
  }
  return cached.names;
}

export function useDirectory(session: Session): Directory {
  const key = `${session.tenant_id}:${session.operator.id}`;
  const [dir, setDir] = useState<Directory>(new Map());
  useEffect(() => {
    let live = true;
    load(key).then(
      (d) => live && setDir(d),
      () => {},
    );
    return () => {
      live = false;
    };
  }, [key]);
  return dir;
}

/** An actor reference as stored by the API (an operator id, `operator:<id>`, `api_key:<key id>`) as a person. */
export function personName(ref: string | null | undefined, dir: Directory, me: { id: string; name: string }) {
  if (!ref) return '—';
  if (ref.startsWith('api_key:')) return 'the API (secret key)';
  const id = ref.replace(/^operator:/, '');
  if (id === me.id) return `${me.name} (you)`;
  const o = dir.get(id);
  return o ? `${o.name}${o.disabled ? ' (disabled)' : ''}` : shortId(id);
}
