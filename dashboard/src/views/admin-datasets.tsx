import { useState } from 'preact/hooks';
import { adminToken, refusedToken, TOKEN_REFUSED } from '../admin-token';
import { type DatasetVersionSummary, listDatasetVersions, promoteDatasetVersion } from '../api';
import { fmtNumber, fmtTime, shortId } from '../format';
import {
  Badge,
  Confirm,
  ErrorBox,
  ListTable,
  Notice,
  PageHeader,
  useAction,
  useAsync,
  useFocusHeading,
} from '../ui';

export function AdminDatasets() {
  const list = useAsync(listDatasetVersions, []);
  const [target, setTarget] = useState<DatasetVersionSummary | null>(null);
  const [token, setToken] = useState(adminToken.get());
  const { busy, error, setError, run } = useAction();
  const [notice, setNotice] = useState<string | null>(null);
  useFocusHeading('datasets');

  const active = list.data?.active ?? null;
  const promote = async () => {
    if (!target) return;
    await run(
      async () => {
        const v = await promoteDatasetVersion(target.id, token);
        adminToken.set(token);
        setNotice(`“${v.name}” is now the active dataset version in every process.`);
        setTarget(null);
        list.reload();
      },
      { onError: (e) => (refusedToken(e) ? new Error(TOKEN_REFUSED) : e) },
    );
  };

  const isRollback = (v: DatasetVersionSummary) =>
    !!active && !!v.ready_at && !!active.ready_at && new Date(v.created_at) < new Date(active.created_at);

  return (
    <section aria-labelledby="page-title">
      <PageHeader title="Dataset versions">
        <button type="button" class="btn" onClick={list.reload}>
          Refresh
        </button>
      </PageHeader>
      <p class="muted">
        The sanctions/PEP list versions this deployment screens against. Every tenant shares them, so
        promotion (and rollback: promoting an older version) needs the deployment’s admin token, not only an
        admin role.
      </p>
      <Notice text={notice} onClose={() => setNotice(null)} />
      {active && (
        <section class="card active-version" aria-labelledby="h-active">
          <h2 id="h-active">Active: {active.name}</h2>
          <p class="small">
            <code>{active.id}</code> · promoted {fmtTime(active.promoted_at)} ·{' '}
            {fmtNumber(active.stats.entities)} entities · {fmtNumber(active.stats.names)} names ·{' '}
            {active.formats.join(', ')}
          </p>
        </section>
      )}
      <ListTable
        list={list}
        loading="Loading dataset versions…"
        empty="No dataset version exists yet: build one with POST /admin/dataset_versions or `veriscreen ingest`."
        columns={['Name', 'Status', 'Lists', 'Entities', 'Names', 'Issues', 'Built', 'Promoted']}
        actions
        row={(v) => (
          <tr key={v.id} class={v.status === 'active' ? 'row-current' : ''}>
            <td>
              {v.name}
              <div class="muted small">
                <code>{shortId(v.id)}</code>
              </div>
            </td>
            <td>
              <Badge value={v.status} />
              {v.error && <div class="error-text small">{v.error}</div>}
            </td>
            <td>{v.formats.join(', ')}</td>
            <td class="num">{fmtNumber(v.stats.entities)}</td>
            <td class="num">{fmtNumber(v.stats.names)}</td>
            <td class="num">{fmtNumber(v.stats.issues)}</td>
            <td>{fmtTime(v.ready_at)}</td>
            <td>{fmtTime(v.promoted_at)}</td>
            <td>
              {v.status === 'ready' && (
                <button
                  type="button"
                  class="btn btn-small"
                  data-promote={v.id}
                  onClick={() => {
                    setError(undefined);
                    setTarget(v);
                  }}
                >
                  {isRollback(v) ? 'Roll back to this' : 'Promote'}
                </button>
              )}
            </td>
          </tr>
        )}
      />
      <Confirm
        open={target !== null}
        title={
          target && isRollback(target) ? 'Roll back the active dataset?' : 'Promote this dataset version?'
        }
        confirmLabel={target && isRollback(target) ? 'Roll back' : 'Promote'}
        busy={busy || !token}
        onConfirm={promote}
        onCancel={() => {
          setTarget(null);
          setError(undefined);
        }}
      >
        {target && (
          <>
            <p>
              <strong>{target.name}</strong> ({fmtNumber(target.stats.entities)} entities) replaces{' '}
              <strong>{active?.name ?? 'nothing'}</strong> for every screen of every tenant, within seconds.
              Monitors are rescreened against what changed.
            </p>
            <label for="admin-token">Deployment admin token (X-Admin-Token)</label>
            <input
              id="admin-token"
              type="password"
              autocomplete="off"
              value={token}
              onInput={(e) => setToken(e.currentTarget.value)}
            />
            <small class="muted">Kept in this tab’s memory only.</small>
            <ErrorBox error={error} title="Promotion refused" />
          </>
        )}
      </Confirm>
    </section>
  );
}
