import { useState } from 'preact/hooks';
import { AdminTokenGate, refusedToken } from '../admin-token';
import { type FatfListings, getFatf, putFatf } from '../api';
import {
  DataTable,
  Empty,
  ErrorBox,
  Loading,
  Notice,
  PageHeader,
  useAction,
  useAsync,
  useFocusHeading,
} from '../ui';

type Level = 'black' | 'grey';
const regionNames = new Intl.DisplayNames(undefined, { type: 'region' });
const countryName = (code: string): string => {
  try {
    return regionNames.of(code) ?? code;
  } catch {
    return code;
  }
};

export function AdminFatf() {
  useFocusHeading('fatf');
  return (
    <section aria-labelledby="page-title">
      <PageHeader title="FATF listings" />
      <p class="muted">
        Countries under FATF call for action (black) or increased monitoring (grey). The check policy decides
        what a listed nationality or residence does to a flow (flag, block or ignore).
      </p>
      <AdminTokenGate purpose="The FATF country list">
        {(token, onRefused) => <FatfEditor token={token} onRefused={onRefused} />}
      </AdminTokenGate>
    </section>
  );
}

function FatfEditor({ token, onRefused }: { token: string; onRefused: () => void }) {
  const current = useAsync(
    () =>
      getFatf(token).catch((e: unknown) => {
        if (refusedToken(e)) onRefused();
        throw e;
      }),
    [token],
  );
  const [draft, setDraft] = useState<FatfListings | null>(null);
  const [code, setCode] = useState('');
  const [level, setLevel] = useState<Level>('grey');
  const { busy, error, setError, run } = useAction();
  const [notice, setNotice] = useState<string | null>(null);

  if (current.loading && !current.data) return <Loading label="Loading the FATF listings…" />;
  if (current.error || !current.data) return <ErrorBox error={current.error} />;
  const map = draft ?? current.data;
  const rows = Object.entries(map).sort(([a, la], [b, lb]) =>
    la === lb ? countryName(a).localeCompare(countryName(b)) : la === 'black' ? -1 : 1,
  );
  const count = (l: Level) => rows.filter(([, v]) => v === l).length;

  const add = (e: Event) => {
    e.preventDefault();
    const c = code.trim().toUpperCase();
    if (!/^[A-Z]{2}$/.test(c)) {
      setError(new Error(`“${code}” is not a two-letter ISO 3166-1 country code`));
      return;
    }
    setError(undefined);
    setDraft({ ...map, [c]: level });
    setCode('');
  };
  const save = () =>
    run(
      async () => {
        current.set(await putFatf(token, map));
        setDraft(null);
        setNotice('Saved: every process screens with the new listings');
      },
      {
        onError: (e) => {
          if (refusedToken(e)) onRefused();
          return e;
        },
      },
    );

  return (
    <>
      <Notice text={notice} onClose={() => setNotice(null)} />
      <p>
        <strong>{count('black')}</strong> black-listed, <strong>{count('grey')}</strong> grey-listed
        {draft && <span class="muted"> · unsaved changes</span>}
      </p>
      <form class="filters" onSubmit={add} aria-label="Add or change a country">
        <label>
          Country code
          <input
            value={code}
            maxLength={2}
            size={4}
            onInput={(e) => setCode(e.currentTarget.value)}
            placeholder="e.g. KP"
          />
        </label>
        <label>
          Listing
          <select
            aria-label="New listing"
            value={level}
            onChange={(e) => setLevel(e.currentTarget.value as Level)}
          >
            <option value="grey">grey (increased monitoring)</option>
            <option value="black">black (call for action)</option>
          </select>
        </label>
        <button type="submit" class="btn">
          Add to the list
        </button>
      </form>
      <ErrorBox error={error} title="The listings were not saved" />
      {rows.length === 0 ? (
        <Empty>No country is listed.</Empty>
      ) : (
        <DataTable columns={['Country', 'Code', 'Listing']} actions compact>
          {rows.map(([c, l]) => (
            <tr key={c} data-country={c}>
              <td>{countryName(c)}</td>
              <td>
                <code>{c}</code>
              </td>
              <td>
                <select
                  aria-label={`Listing of ${countryName(c)}`}
                  value={l}
                  onChange={(e) => setDraft({ ...map, [c]: e.currentTarget.value as Level })}
                >
                  <option value="black">black</option>
                  <option value="grey">grey</option>
                </select>
              </td>
              <td>
                <button
                  type="button"
                  class="btn btn-small"
                  onClick={() => {
                    const { [c]: _gone, ...rest } = map;
                    setDraft(rest);
                  }}
                >
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <div class="row-actions">
        <button
          type="button"
          class="btn btn-primary"
          disabled={!draft || busy || rows.length === 0}
          onClick={save}
        >
          Save listings
        </button>
        <button type="button" class="btn" disabled={!draft} onClick={() => setDraft(null)}>
          Discard changes
        </button>
      </div>
    </>
  );
}
