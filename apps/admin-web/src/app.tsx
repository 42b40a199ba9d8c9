import { ErrorBoundary, LocationProvider, Route, Router, lazy, useLocation } from 'preact-iso';
import { useEffect } from 'preact/hooks';
import { appBase } from './api/api-client';
import { AppShell } from './layout/app-shell';
import { RoutesListPage } from './routes/routes-list.page';
import { AdminRoleRequiredPage } from './session/admin-role-required.page';
import { session } from './session/session.state';
import { SignInPage } from './session/sign-in.page';

// Pages past the list load on demand: the sign-in and list pages stay inside their size budget.
const RouteDetailPage = lazy(() => import('./routes/route-detail.page'));
const RouteEditorPage = lazy(() => import('./routes/editor/route-editor.page'));
const DeletedRoutesPage = lazy(() => import('./routes/deleted-routes.page'));
const MonitoringPage = lazy(() => import('./monitoring/monitoring.page'));
const UsersPage = lazy(() => import('./users/users.page'));
const ApiKeysPage = lazy(() => import('./api-keys/api-keys.page'));
const LogsPage = lazy(() => import('./logs/logs.page'));
const SettingsPage = lazy(() => import('./settings/settings.page'));
const EventsPage = lazy(() => import('./events/events.page'));
const WebhooksPage = lazy(() => import('./webhooks/webhooks.page'));
const WebhookDetailPage = lazy(() => import('./webhooks/webhook-detail.page'));
const RunbooksPage = lazy(() => import('./runbooks/runbooks.page'));
const RunbookEditorPage = lazy(() => import('./runbooks/runbook-editor.page'));
const ApprovalsPage = lazy(() => import('./approvals/approvals.page'));
const IncidentsPage = lazy(() => import('./incidents/incidents.page'));
const IncidentDetailPage = lazy(() => import('./incidents/incident-detail.page'));
const AiSettingsPage = lazy(() => import('./ai-settings/ai-settings.page'));
const UpstreamsPage = lazy(() => import('./upstreams/upstreams.page'));
const UpstreamEditorPage = lazy(() => import('./upstreams/upstream-editor.page'));

const base = appBase.pathname;

/** `/admin/` itself shows the routes list. */
function RedirectToRoutes() {
  const location = useLocation();
  useEffect(() => location.route(`${base}routes`, true), []);
  return null;
}

function NotFoundPage() {
  return (
    <main>
      <h1>Page not found</h1>
      <p>
        <a href={`${base}routes`}>Go to the routes</a>
      </p>
    </main>
  );
}

/** Whoever is signed in decides what shows; the address stays, so a deep link survives sign-in. */
function SessionGate() {
  const state = session.value;
  if (state.status === 'loading') return <p role="status">Loading…</p>;
  if (state.status === 'signed-out') return <SignInPage notice={state.message} />;
  if (state.user.role !== 'admin') return <AdminRoleRequiredPage user={state.user} />;
  return (
    <AppShell user={state.user}>
      <ErrorBoundary>
        <Router>
          <Route path={base} component={RedirectToRoutes} />
          <Route path={`${base}routes`} component={RoutesListPage} />
          <Route path={`${base}routes/:id`} component={RouteDetailPage} />
          <Route path={`${base}routes/:id/edit`} component={RouteEditorPage} />
          <Route path={`${base}new-route`} component={RouteEditorPage} />
          <Route path={`${base}deleted-routes`} component={DeletedRoutesPage} />
          <Route path={`${base}upstreams`} component={UpstreamsPage} />
          <Route path={`${base}upstreams/:name/edit`} component={UpstreamEditorPage} />
          <Route path={`${base}new-upstream`} component={UpstreamEditorPage} />
          <Route path={`${base}monitoring`} component={MonitoringPage} />
          <Route path={`${base}users`} component={UsersPage} />
          <Route path={`${base}api-keys`} component={ApiKeysPage} />
          <Route path={`${base}logs`} component={LogsPage} />
          <Route path={`${base}settings`} component={SettingsPage} />
          <Route path={`${base}events`} component={EventsPage} />
          <Route path={`${base}webhooks`} component={WebhooksPage} />
          <Route path={`${base}webhooks/:id`} component={WebhookDetailPage} />
          <Route path={`${base}runbooks`} component={RunbooksPage} />
          <Route path={`${base}runbooks/new`} component={RunbookEditorPage} />
          <Route path={`${base}runbooks/:id`} component={RunbookEditorPage} />
          <Route path={`${base}approvals`} component={ApprovalsPage} />
          <Route path={`${base}incidents`} component={IncidentsPage} />
          <Route path={`${base}incidents/:id`} component={IncidentDetailPage} />
          <Route path={`${base}ai-settings`} component={AiSettingsPage} />
          <Route default component={NotFoundPage} />
        </Router>
      </ErrorBoundary>
    </AppShell>
  );
}

export function App() {
  return (
    <LocationProvider scope={base}>
      <SessionGate />
    </LocationProvider>
  );
}
