import { useEffect } from 'preact/hooks';
import { ErrorBoundary, LocationProvider, Route, Router, lazy, useLocation } from 'preact-iso';
import { onCsrfRefresh, onUnauthorized } from './api/client';
import { forgetUser, loadSession, refreshCsrfToken, useSession, type SessionState } from './api/session-store';
import { AppShell } from './components/app-shell';
import { CrashBoundary } from './components/crash-boundary';
import { ErrorMessage } from './components/error-message';
import { Loading } from './components/loading';
import { safeNext } from './lib/safe-next';
import { SetupPage } from './pages/setup-page';
import { SignInPage } from './pages/signin-page';
import { ProjectsPage } from './pages/projects-page';
import { UsersPage } from './pages/users-page';
import { AccountPage } from './pages/account-page';
import { KeysPage } from './pages/keys-page';
import { SettingsPage } from './pages/settings-page';
import { JobsPage } from './pages/jobs-page';
import { NotFoundPage } from './pages/not-found-page';
import { ProjectRedirect } from './pages/project-redirect';

// Heavy pages load on demand: the diff viewer (diff2html), the chart (uPlot) and the job
// conversation stay out of the first route's bundle, as do the admin-only webhook pages.
const JobPage = lazy(() => import('./pages/job-page'));
const PullRequestPage = lazy(() => import('./pages/pull-request-page'));
const AnalyticsPage = lazy(() => import('./pages/analytics-page'));
const WebhooksPage = lazy(() => import('./pages/webhooks-page'));
const WebhookPage = lazy(() => import('./pages/webhook-page'));

const PULL_REQUEST_PATH = /^\/projects\/[^/]+\/pulls\/\d+\/?$/;

/** Where a visitor must go before the page they asked for, or null to show it. */
function redirectFor(session: SessionState, path: string, url: string, next: string | undefined): string | null {
  if (session.status !== 'ready') return null;
  // The pull request page opens with its share token alone (the link an agent job posts).
  if (PULL_REQUEST_PATH.test(path)) return null;
  if (session.setupRequired) return path === '/setup' ? null : '/setup';
  if (path === '/setup') return session.user ? '/' : '/signin';
  if (!session.user) return path === '/signin' ? null : session.signedOut || url === '/' ? '/signin' : `/signin?next=${encodeURIComponent(url)}`;
  // After an admin's reset, nothing else works until a new password is set.
  if (session.user.mustChangePassword) return path === '/account' ? null : '/account';
  if (path === '/signin') return safeNext(next);
  return null;
}

function Routes() {
  const session = useSession();
  const location = useLocation();
  useEffect(() => {
    onUnauthorized(forgetUser);
    onCsrfRefresh(refreshCsrfToken);
    void loadSession();
  }, []);
  const target = redirectFor(session, location.path, location.url, location.query.next);
  useEffect(() => {
    if (target !== null) location.route(target, true);
  }, [target]);

  if (session.status === 'loading' || target !== null) {
    return (
      <AppShell>
        <Loading label="Loading Docwright…" />
      </AppShell>
    );
  }
  // A shared pull request link still opens read-only when the session check fails.
  if (session.status === 'error' && !PULL_REQUEST_PATH.test(location.path)) {
    return (
      <AppShell>
        <div class="page narrow">
          <h1>Docwright is not reachable</h1>
          <ErrorMessage error={session.error} title="Could not check your session" onRetry={() => void loadSession()} />
        </div>
      </AppShell>
    );
  }
  return (
    <AppShell>
      <ErrorBoundary>
        <CrashBoundary resetKey={location.path}>
          <Router onRouteChange={() => document.getElementById('main')?.focus({ preventScroll: false })}>
            <Route path="/" component={ProjectsPage} />
            <Route path="/setup" component={SetupPage} />
            <Route path="/signin" component={SignInPage} />
            <Route path="/users" component={UsersPage} />
            <Route path="/account" component={AccountPage} />
            <Route path="/projects" component={ProjectsPage} />
            <Route path="/projects/:projectId" component={ProjectRedirect} />
            <Route path="/projects/:projectId/jobs" component={JobsPage} />
            <Route path="/projects/:projectId/jobs/:jobId" component={JobPage} />
            <Route path="/projects/:projectId/analytics" component={AnalyticsPage} />
            <Route path="/projects/:projectId/keys" component={KeysPage} />
            <Route path="/projects/:projectId/webhooks" component={WebhooksPage} />
            <Route path="/projects/:projectId/webhooks/:webhookId" component={WebhookPage} />
            <Route path="/projects/:projectId/settings" component={SettingsPage} />
            <Route path="/projects/:projectId/pulls/:number" component={PullRequestPage} />
            <Route default component={NotFoundPage} />
          </Router>
        </CrashBoundary>
      </ErrorBoundary>
    </AppShell>
  );
}

export function App() {
  return (
    <LocationProvider>
      <Routes />
    </LocationProvider>
  );
}
