import { useState } from 'preact/hooks';
import { adminToken, refusedToken, TOKEN_REFUSED } from '../admin-token';
import { type DatasetVersionSummary, listDatasetVersions, promoteDatasetVersion } from '../api';
import { fmtNumber, fmtTime, shortId } from '../format';
import {
  Badge,
  Confirm,
  Empty,
  ErrorBox,
  Loading,
  Notice,
  PageHeader,
  useAsync,
  useFocusHeading,
} from '../ui';

export function AdminDatasets() {
  const list = useAsync(listDatasetVersions, []);
  const [target, setTarget] = useState<DatasetVersionSummary | null>(null);
  const [token, setToken] = useState(adminToken.get());
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [notice, setNotice] = useState<string | null>(null);
  useFocusHeading('datasets');

  const active = list.data?.active ?? null;
  const promote = async () => {
    if (!target) return;
    setBusy(true);
    setError(undefined);
    try {
      const v = await promoteDatasetVersion(target.id, token);
      adminToken.set(token);
      setNotice(`“${v.name}” is now the active dataset version in every process.`);
      setTarget(null);
      list.reload();
    } catch (e) {
      setError(refusedToken(e) ? new Error(TOKEN_REFUSED) : e);
    } finally {
      setBusy(false);
    }
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
      {list.loading && !list.data ? (
        <Loading label="Loading dataset versions…" />
      ) : list.error ? (
        <ErrorBox error={list.error} />
      ) : !list.data?.items.length ? (
        <Empty>
          No dataset version exists yet: build one with POST /admin/dataset_versions or `veriscreen ingest`.
        </Empty>
      ) : (
        <div class="table-wrap">
          <table class="table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Lists</th>
                <th scope="col">Entities</th>
                <th scope="col">Names</th>
                <th scope="col">Issues</th>
                <th scope="col">Built</th>
                <th scope="col">Promoted</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((v) => (
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
              ))}
            </tbody>
          </table>
        </div>
      )}
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
