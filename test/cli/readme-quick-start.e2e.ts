import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loginToManagementApi, makeTempDir, REPO_ROOT, request } from '@gateway/testing';
import { firstRunEnv, runShell, startGatewayIn, type StartedGateway } from './gateway-cli';

/*
 * Issue 11, "First run": the README's quick start, run as written in a fresh copy of the
 * repository. The copy holds what a clone of this working tree would (tracked and unignored files:
 * no .gateway, no .env, no cli-tokens), so the first-run behaviour is the one a new user meets.
 * To stay well under the runner's 2-minute limit per file on a loaded machine, the copy reuses
 * this checkout's install and build: node_modules hard-linked (npm finds everything, no registry
 * needed) and the build outputs copied with their times, so the `npm install` in the command runs
 * its `prepare` build incrementally. A build from nothing is what .ci/run's `npm ci` does on its
 * clean clone. The second command, `npm test`, is what .ci/run runs; running it here would run the
 * whole suite inside itself.
 */
const README = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');

/** The lines of the first ```sh block under "## Quick start", without their trailing comments. */
function quickStartCommands(markdown: string): string[] {
  const section = markdown.split(/^## Quick start$/m)[1];
  assert.ok(section !== undefined, 'README.md has a "## Quick start" section');
  const block = /^```sh\n([\s\S]*?)^```$/m.exec(section.split(/^## /m)[0] ?? '')?.[1];
  assert.ok(block !== undefined, 'the quick start has a ```sh block');
  return block.split('\n').map((line) => line.replace(/\s+#.*$/, '').trim()).filter((line) => line !== '');
}

/** The build outputs of the workspace projects (tsc -b), relative to the repository root. */
function buildOutputs(): string[] {
  return ['apps', 'libs', 'tools']
    .flatMap((group) => (existsSync(path.join(REPO_ROOT, group)) ? readdirSync(path.join(REPO_ROOT, group)).map((project) => path.join(group, project, 'dist')) : []))
    .concat('test/dist')
    .filter((dir) => existsSync(path.join(REPO_ROOT, dir)));
}

/** A fresh clone of the working tree, as files: `git ls-files` lists what a clone would hold. */
function copyWorkingTree(target: string): void {
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: REPO_ROOT, encoding: 'utf8' });
  assert.equal(listed.status, 0, listed.stderr);
  const files = listed.stdout.split('\0').filter((file) => file !== '' && existsSync(path.join(REPO_ROOT, file)));
  // -p keeps the times, which the incremental build compares with its outputs'.
  const copied = spawnSync('cp', ['-p', '--parents', '-t', target, ...files], { cwd: REPO_ROOT, encoding: 'utf8' });
  assert.equal(copied.status, 0, copied.stderr);
  // Real copies, not links: the build in the copy rewrites its outputs in place.
  const outputs = spawnSync('cp', ['-a', '--parents', '-t', target, ...buildOutputs()], { cwd: REPO_ROOT, encoding: 'utf8' });
  assert.equal(outputs.status, 0, outputs.stderr);
  // Hard links: fast and small. The workspace links inside are relative, so they point into the copy.
  const linked = spawnSync('cp', ['-al', path.join(REPO_ROOT, 'node_modules'), path.join(target, 'node_modules')], { encoding: 'utf8' });
  assert.equal(linked.status, 0, linked.stderr);
  // npm rewrites its hidden lockfile in place: a linked one would write into this checkout's.
  const hiddenLock = path.join(target, 'node_modules', '.package-lock.json');
  if (existsSync(hiddenLock)) {
    const text = readFileSync(hiddenLock);
    rmSync(hiddenLock);
    writeFileSync(hiddenLock, text);
  }
}

describe('the README quick start, run as written in a fresh copy', () => {
  const commands = quickStartCommands(README);
  const clone = makeTempDir('gateway-readme-');
  let gateway: StartedGateway | undefined;
  // Only the registry look-ups npm would make are answered from its cache (nothing is missing).
  const env = firstRunEnv({ npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' });

  before(() => copyWorkingTree(clone.path));
  after(async () => {
    await gateway?.stop();
    clone.remove();
  });

  test('the quick start is two commands: install-and-start, and the tests CI runs', () => {
    assert.deepEqual(commands, ['npm install && npx gateway start --config proxy.yml', 'npm test']);
    assert.match(readFileSync(path.join(REPO_ROOT, '.ci', 'run'), 'utf8'), /^npm test$/m, '.ci/run runs the second command as written');
  });

  test('`npm install && npx gateway start --config proxy.yml` builds and serves /health', async () => {
    // --port 0: the README's own port (8080, from proxy.yml) may be taken on a shared CI machine.
    gateway = await startGatewayIn(clone.path, ['sh', '-c', `${commands[0]} --port 0`], env, 90_000);
    const health = await request(`${gateway.url}/health`);
    assert.equal(health.status, 200, health.text);
  });

  test('`npx gateway init` beside it keeps proxy.yml, creates an admin whose password logs in', async () => {
    assert.ok(gateway !== undefined, 'the gateway started');
    const init = await runShell('npx gateway init', { cwd: clone.path, env });
    assert.equal(init.code, 0, init.stdout + init.stderr);
    assert.match(init.stdout, /Kept proxy\.yml: it exists/);
    const password = /Created the admin account (\S+) with the password: (\S+)/.exec(init.stdout);
    assert.ok(password !== null, init.stdout);
    const api = await loginToManagementApi(gateway.url, { email: password[1]!, password: password[2]! });
    await api.expect(200, 'GET', '/api/routes');
  });
});
