import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDir, request, startGatewayProcess, startTextUpstream, type GatewayProcess, type LoopbackUpstream } from '@gateway/testing';
import { deadPid, runGateway } from './gateway-cli';

const configFor = (routes: string) => `version: "1.0.0"\nroutes:\n${routes}`;

describe('gateway config:reload', () => {
  let blue: LoopbackUpstream;
  let green: LoopbackUpstream;
  const temp = makeTempDir('gateway-cli-reload-');

  before(async () => {
    blue = await startTextUpstream('blue');
    green = await startTextUpstream('green');
  });

  after(async () => {
    await Promise.all([blue?.close(), green?.close()]);
    temp.remove();
  });

  const writeConfig = (name: string, text: string): string => {
    const file = path.join(temp.path, name);
    writeFileSync(file, text);
    return file;
  };

  describe('against a running gateway', () => {
    let gateway: GatewayProcess;
    const reload = (...args: string[]) =>
      runGateway(['config:reload', '--config', gateway.configPath, '--data-dir', gateway.dataDir, ...args], { cwd: temp.path });

    before(async () => {
      gateway = await startGatewayProcess({
        config: configFor(
          `  - { path: /keep/*, upstream: "${blue.origin}" }\n` +
            `  - { path: /change/*, upstream: "${blue.origin}" }\n` +
            `  - { path: /remove/*, upstream: "${blue.origin}" }\n`,
        ),
      });
      await gateway.waitForOutput('pid file written');
    });
    after(async () => {
      await gateway?.stop();
    });

    test('--dry-run prints the routes added, changed (with fields) and removed, and signals nothing', async () => {
      gateway.writeConfig(
        configFor(
          `  - { path: /keep/*, upstream: "${blue.origin}" }\n` +
            `  - { path: /change/*, upstream: "${green.origin}", timeout: { request: 3000 } }\n` +
            `  - { path: /add/*, upstream: "${green.origin}" }\n`,
        ),
      );
      const result = await reload('--dry-run');
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /against the routes the gateway applied at \d{4}-\d\d-\d\dT/);
      assert.match(result.stdout, /^ {2}\+ .*\/add\/\* -> /m);
      assert.match(result.stdout, /^ {2}~ .*\/change\/\* -> .*\(changed: .*upstream.*\)$/m);
      assert.match(result.stdout, /^ {2}~ .*\(changed: .*timeout.*\)$/m);
      assert.match(result.stdout, /^ {2}- .*\/remove\/\* -> /m);
      assert.doesNotMatch(result.stdout, /\/keep\/\*/);
      assert.match(result.stdout, /^1 added, 1 changed, 1 removed$/m);
      assert.match(result.stdout, /Dry run: nothing was signalled/);

      assert.equal(existsSync(path.join(gateway.dataDir, 'reload-status.json')), false, 'the gateway was signalled');
      assert.equal((await request(`${gateway.url}/add/x`)).status, 404);
      assert.equal((await request(`${gateway.url}/change/x`)).text, 'blue');
    });

    test('without --dry-run it signals the gateway, waits for the result, and the change takes effect', async () => {
      // The file from the dry run above is still in place.
      const result = await reload();
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, new RegExp(`Sent SIGHUP to the gateway \\(pid ${gateway.pid}\\)`));
      assert.match(result.stdout, /Reloaded at .*: the gateway serves 3 routes \(1 added, 1 changed, 1 removed\)/);
      assert.equal((await request(`${gateway.url}/change/x`)).text, 'green');
      assert.equal((await request(`${gateway.url}/add/x`)).text, 'green');
      assert.equal((await request(`${gateway.url}/remove/x`)).status, 404);
    });

    test('once applied, the snapshot matches: no changes left', async () => {
      const result = await reload('--dry-run');
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /^0 added, 0 changed, 0 removed$/m);
    });

    test('an invalid file: every error, exit 1, the gateway is not signalled', async () => {
      gateway.writeConfig(configFor(`  - { path: no-slash, upstream: "not a url" }\n`));
      const result = await reload();
      assert.equal(result.code, 1);
      assert.match(result.stderr, /proxy\.yml:3 routes\[0\]\.path: /);
      assert.match(result.stderr, /proxy\.yml:3 routes\[0\]\.upstream: /);
      assert.match(result.stderr, /nothing was reloaded/);
      assert.doesNotMatch(result.stdout, /Sent SIGHUP/);
      assert.equal((await request(`${gateway.url}/change/x`)).text, 'green');
    });
  });

  test('no snapshot yet: diffs against no routes and says so', async () => {
    const config = writeConfig('fresh.yml', configFor(`  - { path: /a/*, upstream: "${blue.origin}" }\n  - { path: /b/*, upstream: "${green.origin}" }\n`));
    const result = await runGateway(['config:reload', '--dry-run', '--config', config, '--data-dir', path.join(temp.path, 'empty-data')], { cwd: temp.path });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /against no routes \(no routes snapshot at .*routes\.snapshot\.json\)/);
    assert.match(result.stdout, /^2 added, 0 changed, 0 removed$/m);
  });

  test('no running gateway (no pid file): exit 1', async () => {
    const config = writeConfig('idle.yml', configFor(`  - { path: /a/*, upstream: "${blue.origin}" }\n`));
    const dataDir = path.join(temp.path, 'idle-data');
    const result = await runGateway(['config:reload', '--config', config, '--data-dir', dataDir], { cwd: temp.path });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^gateway is not running \(no pid file at .*idle-data\/gateway\.pid\)$/m);
  });

  test('a stale pid file: exit 1, not running', async () => {
    const config = writeConfig('stale.yml', configFor(`  - { path: /a/*, upstream: "${blue.origin}" }\n`));
    const dataDir = path.join(temp.path, 'stale-data');
    mkdirSync(dataDir);
    const pid = await deadPid();
    writeFileSync(path.join(dataDir, 'gateway.pid'), `${pid}\n`);
    const result = await runGateway(['config:reload', '--config', config, '--data-dir', dataDir], { cwd: temp.path });
    assert.equal(result.code, 1);
    assert.match(result.stderr, new RegExp(`gateway is not running \\(pid file at .* names process ${pid}, which does not exist\\)`));
  });

  test('a pid file naming a live process that is not a gateway: exit 1, the process is not signalled', async () => {
    // A recycled pid: SIGHUP would terminate this process, which installs no handler.
    const bystander = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    try {
      const config = writeConfig('bystander.yml', configFor(`  - { path: /a/*, upstream: "${blue.origin}" }\n`));
      const dataDir = path.join(temp.path, 'bystander-data');
      mkdirSync(dataDir);
      writeFileSync(path.join(dataDir, 'gateway.pid'), `${bystander.pid}\n`);
      const result = await runGateway(['config:reload', '--config', config, '--data-dir', dataDir], { cwd: temp.path });
      assert.equal(result.code, 1);
      assert.match(result.stderr, /which is not a gateway; not signalling it/);
      assert.equal(bystander.exitCode, null);
      assert.equal(bystander.signalCode, null);
    } finally {
      bystander.kill('SIGKILL');
    }
  });

  test('no answer within 10 s: exit 1 saying so', async () => {
    // A live process that survives SIGHUP but never writes reload-status.json.
    // Its command line names a gateway, so config:reload believes the pid file and signals it.
    const deaf = spawn(process.execPath, ['-e', "process.on('SIGHUP', () => {}); setInterval(() => {}, 1000); process.stdout.write('ready')", 'fake-gateway'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      await new Promise((resolve) => deaf.stdout.once('data', resolve));
      const config = writeConfig('deaf.yml', configFor(`  - { path: /a/*, upstream: "${blue.origin}" }\n`));
      const dataDir = path.join(temp.path, 'deaf-data');
      mkdirSync(dataDir);
      writeFileSync(path.join(dataDir, 'gateway.pid'), `${deaf.pid}\n`);
      const started = Date.now();
      const result = await runGateway(['config:reload', '--config', config, '--data-dir', dataDir], { cwd: temp.path });
      assert.equal(result.code, 1);
      assert.match(result.stderr, new RegExp(`no reload result from the gateway \\(pid ${deaf.pid}\\) within 10 s`));
      assert.ok(Date.now() - started >= 9_000);
    } finally {
      deaf.kill('SIGKILL');
    }
  });
});
