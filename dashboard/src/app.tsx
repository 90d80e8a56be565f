import { useCallback, useEffect, useState } from 'preact/hooks';
import { currentSession, logout, type Session, setUnauthorizedHandler } from './api';
import { TIME_ZONE } from './format';
import { href, navigate, onLinkClick, useLocation } from './router';
import { ErrorBox, hasRole, Loading, SessionContext } from './ui';
import { AdminOperators, AdminPolicy } from './views/admin-config';
import { AdminDatasets } from './views/admin-datasets';
import { AdminFatf } from './views/admin-fatf';
import { AdminFeeds } from './views/admin-feeds';
import { AlertDetail } from './views/alert-detail';
import { AlertQueue } from './views/alerts';
import { ApplicantDetail, Applicants } from './views/applicants';
import { BatchDetail, NewBatch } from './views/batch-upload';
import { Batches, Monitors } from './views/batches';
import { FlowDetail, Flows } from './views/flows';
import { Funnel } from './views/funnel';
import { Login } from './views/login';
import { AdminWebhooks } from './views/webhooks';

type Boot = { kind: 'checking' } | { kind: 'signed_out' } | { kind: 'signed_in'; session: Session };

const NAV: { path: string; label: string; admin?: boolean }[] = [
  { path: '/alerts', label: 'Alerts' },
  { path: '/flows', label: 'Flows' },
  { path: '/funnel', label: 'Funnel' },
  { path: '/applicants', label: 'Applicants' },
  { path: '/batches', label: 'Batches' },
  { path: '/monitors', label: 'Monitors' },
  { path: '/admin/datasets', label: 'Datasets', admin: true },
  { path: '/admin/feeds', label: 'Feeds', admin: true },
  { path: '/admin/fatf', label: 'FATF', admin: true },
  { path: '/admin/policy', label: 'Policy', admin: true },
  { path: '/admin/webhooks', label: 'Webhooks', admin: true },
  { path: '/admin/operators', label: 'Operators', admin: true },
];

export function App() {
  const [boot, setBoot] = useState<Boot>({ kind: 'checking' });
  const loc = useLocation();

  useEffect(() => {
    setUnauthorizedHandler(() => setBoot({ kind: 'signed_out' }));
    currentSession().then(
      (session) => setBoot({ kind: 'signed_in', session }),
      () => setBoot({ kind: 'signed_out' }),
    );
  }, []);

  const signOut = useCallback(async () => {
    await logout().catch(() => {});
    setBoot({ kind: 'signed_out' });
    navigate('/login');
  }, []);

  if (boot.kind === 'checking') return <Loading label="Checking your session…" />;
  if (boot.kind === 'signed_out') {
    return (
      <Login
        onSignedIn={(session) => {
          setBoot({ kind: 'signed_in', session });
          if (loc.parts[0] === 'login' || loc.parts.length === 0) navigate('/alerts', { replace: true });
        }}
      />
    );
  }
  const { session } = boot;
  const isAdmin = hasRole(session, 'admin');
  const [section = 'alerts', id, sub] = loc.parts;
  const current = section === 'admin' ? `/admin/${id ?? ''}` : `/${section}`;

  return (
    <SessionContext.Provider value={session}>
      {/* biome-ignore lint/a11y/noStaticElementInteractions: delegated handling of in-app link clicks */}
      {/* biome-ignore lint/a11y/useKeyWithClickEvents: links keep their native keyboard behaviour */}
      <div class="shell" onClick={onLinkClick}>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="topbar">
          <a class="brand" href={href('/alerts')}>
            Veriscreen
          </a>
          <nav aria-label="Main">
            <ul>
              {NAV.filter((n) => !n.admin || isAdmin).map((n) => (
                <li key={n.path}>
                  <a href={href(n.path)} aria-current={current === n.path ? 'page' : undefined}>
                    {n.label}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
          <div class="who">
            <span>
              <span class="who-name">{session.operator.name}</span>{' '}
              <span class={`badge badge-role-${session.operator.role}`}>{session.operator.role}</span>
            </span>
            <span class="muted tz" title="Times are shown in this time zone">
              {TIME_ZONE}
            </span>
            <button type="button" class="btn btn-small" onClick={signOut}>
              Sign out
            </button>
          </div>
        </header>
        <main id="main" class="main">
          <Route section={section} id={id} sub={sub} isAdmin={isAdmin} />
        </main>
      </div>
    </SessionContext.Provider>
  );
}

function Route({
  section,
  id,
  sub,
  isAdmin,
}: {
  section: string;
  id: string | undefined;
  sub: string | undefined;
  isAdmin: boolean;
}) {
  switch (section) {
    case 'login':
    case 'alerts':
      return id && section === 'alerts' ? <AlertDetail id={id} /> : <AlertQueue />;
    case 'flows':
      return id ? <FlowDetail id={id} /> : <Flows />;
    case 'funnel':
      return <Funnel />;
    case 'applicants':
      return id ? <ApplicantDetail id={id} /> : <Applicants />;
    case 'batches':
      return id === 'new' ? <NewBatch /> : id ? <BatchDetail id={id} /> : <Batches />;
    case 'monitors':
      return <Monitors />;
    case 'admin':
      if (!isAdmin) {
        return (
          <ErrorBox
            title="Admins only"
            error={new Error('This screen is for admin operators; the API refuses the calls behind it too.')}
          />
        );
      }
      if (id === 'datasets') return <AdminDatasets />;
      if (id === 'policy') return <AdminPolicy />;
      if (id === 'webhooks') return <AdminWebhooks endpointId={sub} />;
      if (id === 'operators') return <AdminOperators />;
      if (id === 'fatf') return <AdminFatf />;
      if (id === 'feeds') return <AdminFeeds />;
      return <AdminDatasets />;
    default:
      return <ErrorBox title="Not found" error={new Error(`No screen called “${section}”.`)} />;
  }
}
