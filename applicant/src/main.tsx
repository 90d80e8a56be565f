import { render } from 'preact';
import { ApiFailure, adoptBearer, api } from './api';
import { App } from './app';
import { pickLocale, setLocale, t } from './i18n';
import { LINK_PROBLEMS, LinkInvalid, type LinkProblem } from './steps/link-invalid';
import './styles.css';

/** Boot: an invalid link's page (`?link=`), or the applicant session's view (its cookie was set when the link was
 * opened, or an embedding tenant gave its bearer token in the fragment); no session means it has ended. */
async function boot(root: HTMLElement) {
  // an opened link answers with this page itself: its address becomes the page's, so that a reload (or a link
  // shared from the address bar) resumes the session instead of reopening the used link
  if (!location.pathname.startsWith('/applicant/')) history.replaceState(history.state, '', '/applicant/');
  const link = new URLSearchParams(location.search).get('link');
  const problem = (LINK_PROBLEMS as readonly string[]).includes(link ?? '') ? (link as LinkProblem) : null;
  const done = (node: preact.ComponentChild) => {
    render(node, root);
    root.removeAttribute('aria-busy');
  };
  adoptBearer();
  if (problem) {
    setLocale(pickLocale(null, navigator.languages));
    return done(<LinkInvalid problem={problem} />);
  }
  try {
    const view = await api.session();
    setLocale(pickLocale(view.locale, navigator.languages));
    done(<App initial={view} />);
  } catch (e) {
    setLocale(pickLocale(null, navigator.languages));
    if (e instanceof ApiFailure && (e.status === 401 || e.status === 403)) {
      return done(<LinkInvalid problem="session" />);
    }
    done(
      <section class="screen" data-step="error">
        <h1>{t('app.title')}</h1>
        <p role="alert">{t(e instanceof ApiFailure && e.status === 0 ? 'error.network' : 'error.generic')}</p>
        <button type="button" class="primary" onClick={() => location.reload()}>
          {t('app.retry')}
        </button>
      </section>,
    );
  }
}

const root = document.getElementById('app');
if (root) void boot(root);
