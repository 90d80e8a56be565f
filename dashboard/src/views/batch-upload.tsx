import { useEffect, useMemo, useState } from 'preact/hooks';
import { AML_DATASET_VALUES } from '../../../schemas/aml-datasets.js';
import type { AmlDataset } from '../../../schemas/common.js';
import { ApiFailure, type CheckOut, createBatch, getBatch, listChecks } from '../api';
import {
  type BatchRecordIn,
  buildRecords,
  guessMapping,
  MAPPABLE,
  type MappedField,
  type Mapping,
  type RowProblem,
} from '../batch-mapping';
import { type ParsedCsv, parseCsv, toCsv } from '../csv';
import { fmtNumber, fmtScore, fmtTime, humanize, shortId } from '../format';
import { href, navigate } from '../router';
import { Badge, Empty, ErrorBox, Facts, Loading, PageHeader, useAsync, useFocusHeading } from '../ui';

const USE_CASES = ['lookback', 'onboarding', 'ongoing', 'payment'] as const;
const MAX_SHOWN_PROBLEMS = 50;

/** A 422 on `records.N…` said by the line of the file that record came from. */
function byLine(err: ApiFailure, lines: number[]): Error {
  return new Error(
    err.issues
      .map((i) => {
        const at = i.loc.indexOf('records');
        const n = at >= 0 ? Number(i.loc[at + 1]) : Number.NaN;
        const where = Number.isInteger(n) && lines[n] ? `line ${lines[n]}` : i.loc.join('.');
        return `${where} (${i.loc.slice(at + 2).join('.')}): ${i.msg}`;
      })
      .join('; '),
  );
}

/** Which column of the file feeds each batch record field. */
function ColumnMapping(props: { header: string[]; mapping: Mapping; onMapping: (m: Mapping) => void }) {
  const { header, mapping, onMapping } = props;
  return (
    <fieldset>
      <legend>Column mapping</legend>
      <div class="form-grid">
        {MAPPABLE.map((f) => (
          <div class="field" key={f.field}>
            <label for={`map-${f.field}`}>{f.label}</label>
            <select
              id={`map-${f.field}`}
              value={mapping[f.field] ?? ''}
              onChange={(e) => {
                const v = e.currentTarget.value;
                const next: Mapping = { ...mapping };
                if (v === '') delete next[f.field as MappedField];
                else next[f.field as MappedField] = Number(v);
                onMapping(next);
              }}
            >
              <option value="">{'required' in f ? '— choose a column —' : '(not mapped)'}</option>
              {header.map((h, i) => (
                <option key={`${h}-${i}`} value={i}>
                  {h || `column ${i + 1}`}
                </option>
              ))}
            </select>
          </div>
        ))}
      </div>
    </fieldset>
  );
}

/** What in the file could not be used, by line (the first MAX_SHOWN_PROBLEMS). */
function BuildProblems({ problems }: { problems: RowProblem[] }) {
  return (
    <>
      {problems.length > 0 && (
        <section class="card" aria-labelledby="h-problems">
          <h2 id="h-problems">
            {fmtNumber(problems.length)} problem{problems.length === 1 ? '' : 's'} in the file
          </h2>
          <ul class="problems small">
            {problems.slice(0, MAX_SHOWN_PROBLEMS).map((p) => (
              <li key={`${p.line}-${p.field}`} data-line={p.line}>
                Line {p.line}, {humanize(p.field)}: {p.message}
                {p.skipped ? '' : ' (left out; the name is still screened)'}
              </li>
            ))}
          </ul>
          {problems.length > MAX_SHOWN_PROBLEMS && (
            <p class="muted small">…and {problems.length - MAX_SHOWN_PROBLEMS} more.</p>
          )}
        </section>
      )}
    </>
  );
}

/** The first records as they will be sent. */
function RecordPreview({ records, lines }: { records: BatchRecordIn[]; lines: number[] }) {
  return (
    <>
      {records.length > 0 && (
        <div class="table-wrap">
          <table class="table table-compact" aria-label="Preview of the first records">
            <thead>
              <tr>
                <th scope="col">Line</th>
                <th scope="col">Name</th>
                <th scope="col">Reference</th>
                <th scope="col">Type</th>
                <th scope="col">Born</th>
                <th scope="col">Nationality</th>
                <th scope="col">Country</th>
              </tr>
            </thead>
            <tbody>
              {records.map((r, i) => {
                const s = r.subjects[0];
                return (
                  <tr key={lines[i]}>
                    <td class="num">{lines[i]}</td>
                    <td>{s?.name}</td>
                    <td>{r.external_id ?? '—'}</td>
                    <td>{s?.type ?? '—'}</td>
                    <td>{s?.date_of_birth ?? '—'}</td>
                    <td>{s?.nationality ?? '—'}</td>
                    <td>{s?.country ?? '—'}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

/** Upload a customer CSV, map its columns to batch record fields, check the preview, submit. */
export function NewBatch() {
  const [file, setFile] = useState<{ name: string; csv: ParsedCsv } | null>(null);
  const [mapping, setMapping] = useState<Mapping>({});
  const [datasets, setDatasets] = useState<string[]>([]);
  const [useCase, setUseCase] = useState<string>('lookback');
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  useFocusHeading('new-batch');

  const built = useMemo(
    () => (file ? buildRecords(file.csv.rows, mapping, file.name) : null),
    [file, mapping],
  );

  const onFile = async (f: File | undefined) => {
    setError(undefined);
    if (!f) return setFile(null);
    const csv = parseCsv(await f.text());
    if (!csv.header.length || !csv.rows.length) {
      setFile(null);
      setError(new Error(`${f.name} has no data rows under a header line.`));
      return;
    }
    setFile({ name: f.name, csv });
    setMapping(guessMapping(csv.header));
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    if (!built?.records.length) return;
    setBusy(true);
    setError(undefined);
    try {
      const b = await createBatch({
        records: built.records,
        use_case: useCase as (typeof USE_CASES)[number],
        ...(datasets.length ? { datasets: datasets as AmlDataset[] } : {}),
      });
      navigate(`/batches/${b.id}`);
    } catch (err) {
      // a 422 points at records.N: say which line of the file that was
      setError(err instanceof ApiFailure && err.issues.length ? byLine(err, built.lines) : err);
    } finally {
      setBusy(false);
    }
  };

  const header = file?.csv.header ?? [];
  return (
    <section aria-labelledby="page-title">
      <PageHeader title="New check batch from a CSV">
        <a class="btn" href={href('/batches')}>
          Back to batches
        </a>
      </PageHeader>
      <p class="muted">
        One record per row, screened asynchronously. The file stays in this browser: only the mapped fields
        are sent.
      </p>
      <form class="card stack" onSubmit={submit} aria-label="New check batch">
        <div class="field">
          <label for="batch-file">Customer CSV (header line first)</label>
          <input
            id="batch-file"
            type="file"
            accept=".csv,text/csv"
            onChange={(e) => onFile(e.currentTarget.files?.[0])}
          />
        </div>
        {file && (
          <>
            <p class="small">
              <strong>{file.name}</strong>: {fmtNumber(file.csv.rows.length)} rows, columns{' '}
              {header.join(', ')}
            </p>
            <ColumnMapping header={header} mapping={mapping} onMapping={setMapping} />
            <div class="form-grid">
              <div class="field">
                <label for="batch-use-case">Use case</label>
                <select
                  id="batch-use-case"
                  value={useCase}
                  onChange={(e) => setUseCase(e.currentTarget.value)}
                >
                  {USE_CASES.map((u) => (
                    <option key={u} value={u}>
                      {u}
                    </option>
                  ))}
                </select>
              </div>
            </div>
            <fieldset class="checks-inline">
              <legend>Datasets (none ticked: the check policy’s defaults)</legend>
              {AML_DATASET_VALUES.map((d) => (
                <label key={d}>
                  <input
                    type="checkbox"
                    checked={datasets.includes(d)}
                    onChange={(e) =>
                      setDatasets(
                        e.currentTarget.checked ? [...datasets, d] : datasets.filter((x) => x !== d),
                      )
                    }
                  />
                  {humanize(d)}
                </label>
              ))}
            </fieldset>
            {built && <BuildProblems problems={built.problems} />}
            {built && <RecordPreview records={built.records.slice(0, 5)} lines={built.lines} />}
          </>
        )}
        <ErrorBox error={error} title="The batch was not submitted" />
        <div class="row-actions">
          <button
            type="submit"
            class="btn btn-primary"
            disabled={busy || !built?.records.length || mapping.name === undefined}
          >
            {busy
              ? 'Submitting…'
              : built?.records.length
                ? `Screen ${fmtNumber(built.records.length)} records`
                : 'Screen records'}
          </button>
        </div>
      </form>
    </section>
  );
}

type Match = { name?: string; score?: number; datasets?: string[]; evidence?: { threshold?: number } };
const matchesOf = (c: CheckOut): Match[] =>
  Array.isArray(c.evidence.matches) ? (c.evidence.matches as Match[]) : [];
const hitsOf = (c: CheckOut) => matchesOf(c).filter((m) => (m.score ?? 0) >= (m.evidence?.threshold ?? 1));

/** Every check of a batch, page by page (the list endpoint's largest page is 200). */
async function allChecks(batchId: string, result?: 'hit'): Promise<CheckOut[]> {
  const out: CheckOut[] = [];
  let after: string | undefined;
  do {
    const p = await listChecks({ batch_id: batchId, limit: 200, after, result });
    out.push(...p.items);
    after = p.next_cursor ?? undefined;
  } while (after);
  return out;
}

function resultsCsv(checks: CheckOut[]): string {
  const rows: (string | number | null)[][] = [
    [
      'input_ref',
      'external_id',
      'name',
      'result',
      'decision',
      'hits',
      'top_match',
      'top_score',
      'top_datasets',
      'alerts',
      'error',
      'check_id',
    ],
  ];
  for (const c of checks) {
    const hits = hitsOf(c);
    const top = hits[0];
    rows.push([
      c.input_ref,
      c.reference ?? null,
      c.applicant_name,
      c.result,
      c.decision,
      hits.length,
      top?.name ?? null,
      top?.score !== undefined ? top.score.toFixed(3) : null,
      top?.datasets?.join(' ') ?? null,
      c.alert_count,
      c.error,
      c.id,
    ]);
  }
  return toCsv(rows);
}

export function BatchDetail({ id }: { id: string }) {
  const batch = useAsync(() => getBatch(id), [id]);
  const b = batch.data;
  const running = !!b && (b.status === 'queued' || b.status === 'processing');
  useEffect(() => {
    if (!running) return;
    const t = window.setInterval(batch.reload, 2000);
    return () => window.clearInterval(t);
  }, [running, batch.reload]);
  useFocusHeading('batch');
  const done = !!b && !running;
  const hits = useAsync(
    () => (done ? listChecks({ batch_id: id, result: 'hit', limit: 200 }) : Promise.resolve(undefined)),
    [id, done],
  );
  const [download, setDownload] = useState<{ url: string; name: string } | null>(null);
  const [dlError, setDlError] = useState<unknown>(undefined);
  const [preparing, setPreparing] = useState(false);
  useEffect(() => () => (download ? URL.revokeObjectURL(download.url) : undefined), [download]);

  if (batch.loading && !b) return <Loading label="Loading the batch…" />;
  if (batch.error || !b) return <ErrorBox error={batch.error} />;
  const prepare = async () => {
    setPreparing(true);
    setDlError(undefined);
    try {
      const checks = await allChecks(id);
      const blob = new Blob([resultsCsv(checks)], { type: 'text/csv;charset=utf-8' });
      setDownload({ url: URL.createObjectURL(blob), name: `batch-${shortId(id)}-results.csv` });
    } catch (e) {
      setDlError(e);
    } finally {
      setPreparing(false);
    }
  };
  const pct = b.subject_count ? Math.round(((b.completed_count + b.error_count) / b.subject_count) * 100) : 0;
  return (
    <section aria-labelledby="page-title">
      <PageHeader title={`Batch ${shortId(b.id)}`}>
        <Badge value={b.status} />
        <a class="btn" href={href('/batches')}>
          All batches
        </a>
      </PageHeader>
      <section class="card" aria-labelledby="h-progress">
        <h2 id="h-progress">Progress</h2>
        <progress
          class="progress-wide"
          max={b.subject_count || 1}
          value={b.completed_count + b.error_count}
          aria-label={`${pct}% screened`}
        />
        <p data-batch-progress={`${b.completed_count + b.error_count}/${b.subject_count}`}>
          {fmtNumber(b.completed_count)} of {fmtNumber(b.subject_count)} screened
          {b.error_count ? `, ${fmtNumber(b.error_count)} errors` : ''} ({pct}%)
          {running && <span class="muted"> · updating every 2 s…</span>}
        </p>
        {b.error && <p class="error-text">{b.error}</p>}
        <Facts
          rows={[
            ['Use case', b.use_case],
            ['Datasets', b.datasets.join(', ')],
            ['Policy version', <code key="p">{b.policy_version}</code>],
            ['Created', fmtTime(b.created_at)],
            ['Completed', fmtTime(b.completed_at)],
          ]}
        />
      </section>
      {done && (
        <section class="card" aria-labelledby="h-results">
          <h2 id="h-results">Results</h2>
          <div class="row-actions">
            {download ? (
              <a class="btn btn-primary" href={download.url} download={download.name}>
                Download results (CSV)
              </a>
            ) : (
              <button type="button" class="btn" onClick={prepare} disabled={preparing}>
                {preparing ? 'Preparing…' : 'Prepare results CSV'}
              </button>
            )}
            <span class="muted small">Every record with its result, best hit and alert count.</span>
          </div>
          <ErrorBox error={dlError} title="The results could not be read" />
          <h3>Hits</h3>
          {hits.loading && !hits.data ? (
            <Loading label="Loading hits…" />
          ) : hits.error ? (
            <ErrorBox error={hits.error} />
          ) : !hits.data?.items.length ? (
            <Empty>No record hit a list entry.</Empty>
          ) : (
            <div class="table-wrap">
              <table class="table">
                <thead>
                  <tr>
                    <th scope="col">Name as screened</th>
                    <th scope="col">Reference</th>
                    <th scope="col">Best match</th>
                    <th scope="col">Score</th>
                    <th scope="col">Datasets</th>
                    <th scope="col">Alerts</th>
                  </tr>
                </thead>
                <tbody>
                  {hits.data.items.map((c) => {
                    const top = hitsOf(c)[0];
                    return (
                      <tr key={c.id} data-check-id={c.id}>
                        <td>
                          {c.applicant_name}
                          <div class="muted small">{c.input_ref}</div>
                        </td>
                        <td>{c.reference ?? '—'}</td>
                        <td>{top?.name ?? '—'}</td>
                        <td class="num">{fmtScore(top?.score)}</td>
                        <td>{top?.datasets?.join(', ') ?? '—'}</td>
                        <td class="num">{c.alert_count}</td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
              {hits.data.next_cursor && (
                <p class="muted small">More hits than shown: the results CSV has all of them.</p>
              )}
            </div>
          )}
        </section>
      )}
    </section>
  );
}
