import type { ComponentChildren } from 'preact';
import type { SessionUser } from '../api/api-types';
import { appBase } from '../api/api-client';
import { signOut } from '../session/session.state';

/** The frame of every signed-in page: navigation, who is signed in, sign out. */
export function AppShell({ user, children }: { user: SessionUser; children: ComponentChildren }) {
  const base = appBase.pathname;
  return (
    <div class="shell">
      <a class="skip-link" href="#content">
        Skip to content
      </a>
      <header class="top-bar">
        <span class="brand">Gateway admin</span>
        <nav aria-label="Main">
          <a href={`${base}routes`}>Routes</a>
          <a href={`${base}upstreams`}>Upstreams</a>
          <a href={`${base}monitoring`}>Monitoring</a>
          <a href={`${base}users`}>Users</a>
          <a href={`${base}api-keys`}>API keys</a>
          <a href={`${base}logs`}>Logs</a>
          <a href={`${base}events`}>Events</a>
          <a href={`${base}webhooks`}>Webhooks</a>
          <a href={`${base}settings`}>Settings</a>
          <a href={`${base}runbooks`}>Runbooks</a>
          <a href={`${base}approvals`}>Approvals</a>
          <a href={`${base}incidents`}>Incidents</a>
          <a href={`${base}ai-settings`}>AI</a>
        </nav>
        <span class="who">{user.email}</span>
        <button type="button" class="secondary" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <div id="content">{children}</div>
    </div>
  );
}
