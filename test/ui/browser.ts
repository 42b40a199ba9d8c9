import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type ConsoleMessage, type Page } from 'playwright-core';
import { REPO_ROOT, request } from '@gateway/testing';

/** Debian's chromium (never a downloaded browser); CHROMIUM_PATH overrides. */
export const CHROMIUM_PATH = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

/** Screenshots of every page the UI tests visit (gitignored; CI keeps them as artifacts). */
export const ARTIFACTS_DIR = path.join(REPO_ROOT, 'test-artifacts', 'ui');

/**
 * Launches chromium headless. A missing browser fails the test with what to do: the UI tests
 * never skip (.ci/run installs the Debian package).
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`chromium not found at ${CHROMIUM_PATH}: install it (apt-get install chromium) or set CHROMIUM_PATH`);
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** One problem the page reported: a console error, an uncaught exception or a CSP violation. */
export interface PageProblem {
  text: string;
  url: string;
}

/**
 * Records every console error, uncaught page error and CSP violation of a page. A test reads
 * `problems` and fails on any it did not expect (the only expected ones are the browser's own
 * "Failed to load resource" lines for a 401 the test provoked on purpose).
 */
export function watchPage(page: Page): { problems: PageProblem[] } {
  const problems: PageProblem[] = [];
  page.on('console', (message: ConsoleMessage) => {
    if (message.type() === 'error') problems.push({ text: message.text(), url: message.location().url });
  });
  page.on('pageerror', (error) => problems.push({ text: `uncaught: ${error.message}`, url: page.url() }));
  // Reported by the page itself, whatever chromium prints: run before any script of the page.
  void page.addInitScript({
    content: "document.addEventListener('securitypolicyviolation', (e) => console.error('CSP violation: ' + e.violatedDirective + ' blocked ' + e.blockedURI));",
  });
  return { problems };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS_DIR, `${name}.png`), fullPage: true });
}

let axeSource: string | undefined;

/**
 * axe-core's serious and critical findings on the page as it is now, one line each (rule: the
 * elements). Injected through the debugger protocol, not a <script> tag, so the page's CSP stays
 * as strict as in production.
 */
export async function seriousAccessibilityIssues(page: Page): Promise<string[]> {
  axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(axeSource);
  return page.evaluate<string[]>(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => v.id + ' (' + v.impact + '): ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`,
  );
}

/** Every page the tests visit: a screenshot (artifact) and no serious accessibility issue. */
export async function inspectPage(page: Page, name: string): Promise<string[]> {
  await screenshot(page, name);
  return seriousAccessibilityIssues(page);
}

/**
 * The one sign-in of a UI test file (the credentials tier allows 5 per 15 minutes): fills the
 * sign-in page, waits for the routes list, and returns the session token for the file's own API
 * calls (as a Bearer: no CSRF needed).
 */
export async function signInOnce(page: Page, gatewayUrl: string, admin: { email: string; password: string }): Promise<string> {
  await page.goto(`${gatewayUrl}/admin/`);
  await page.getByLabel('Email').fill(admin.email);
  await page.getByLabel('Password').fill(admin.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Routes' }).waitFor();
  const token = (await page.context().cookies()).find((c) => c.name === 'gateway_session')?.value ?? '';
  if (token === '') throw new Error('signed in without a gateway_session cookie');
  return token;
}

/** The browser's line for an API refusal a test provoked on purpose (and nothing else). */
export function isExpectedRefusal(problem: PageProblem, status: number): boolean {
  return new RegExp(`Failed to load resource: the server responded with a status of ${status}`).test(problem.text);
}

/** The management API as a Bearer client with the browser session's token (no CSRF needed). */
export function bearerApi(gatewayUrl: () => string, token: () => string): <T>(method: string, path: string, body?: unknown) => Promise<{ status: number; data: T }> {
  return async <T>(method: string, path: string, body?: unknown): Promise<{ status: number; data: T }> => {
    const res = await request(`${gatewayUrl()}/api/${path}`, {
      method,
      headers: { authorization: `Bearer ${token()}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, data: (res.status === 204 ? undefined : res.json<{ data: T }>().data) as T };
  };
}
