import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { GATEWAY_BIN, GATEWAY_COMMAND, makeTempDir, request, startGatewayProcess, startUpstream, type GatewayProcess, type LoopbackUpstream, startTextUpstream } from '@gateway/testing';
import { cliEnv, deadPid, readIfExists, runGateway, waitFor } from './gateway-cli';

const configFor = (routes: string) => `version: "1.0.0"\nroutes:\n${routes}`;

const INVALID = `version: "1.0.0"
routes:
  - path: no-slash
    upstream: "not a url"
`;

/** True once `pid` catches SIGHUP (bit 0 of SigCgt in /proc/<pid>/status): its handler is installed. */
function catchesSighup(pid: number): boolean {
  const mask = /^SigCgt:\s*([0-9a-f]+)$/m.exec(readIfExists(`/proc/${pid}/status`) ?? '')?.[1];
  return mask !== undefined && (BigInt(`0x${mask}`) & 1n) === 1n;
}

/**
 * `gateway start` whose proxy.yml is a FIFO: every read of the configuration blocks until the
 * test writes the next version, so the test decides when start-up (and each reload) proceeds.
 */
function startOnFifo(dir: string) {
  const configPath = path.join(dir, 'proxy.yml');
  execFileSync('mkfifo', [configPath]);
  const dataDir = path.join(dir, 'data');
  // The data plane alone reads the file exactly once per load, which the FIFO needs; the
  // one-process gateway reads it in both planes, so this test runs the data plane alone.
  const child = spawn(process.execPath, [...GATEWAY_COMMAND, 'start', '--role', 'data-plane', '--config', configPath, '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir], {
    cwd: dir,
    env: cliEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  return {
    child,
    dataDir,
    output: () => output,
    /** Hands the blocked reader the next version of the file. */
    feed: (yaml: string) => writeFile(configPath, yaml),
    waitForOutput: (text: string) => waitFor(`output "${text}"; so far:\n${output}`, () => (output.includes(text) ? true : undefined), 15_000),
    exited,
  };
}

/** Exit code of a gateway child once it exits (startGatewayProcess's stop() would signal again). */
async function exitOf(gateway: GatewayProcess): Promise<number | null> {
  if (gateway.child.exitCode !== null) return gateway.child.exitCode;
  const [code] = (await once(gateway.child, 'exit')) as [number | null];
  return code;
}

describe('gateway start', () => {
  let blue: LoopbackUpstream;
  let green: LoopbackUpstream;
  const temp = makeTempDir('gateway-cli-start-');

  before(async () => {
    blue = await startTextUpstream('blue');
    green = await startTextUpstream('green');
  });

  after(async () => {
    await Promise.all([blue?.close(), green?.close()]);
    temp.remove();
  });

  test('an invalid configuration: every error on stderr, exit 1, nothing listening, no pid file', async () => {
    writeFileSync(path.join(temp.path, 'invalid.yml'), INVALID);
    const dataDir = path.join(temp.path, 'invalid-data');
    const result = await runGateway(['start', '--config', 'invalid.yml', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir], { cwd: temp.path });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^invalid\.yml:3 routes\[0\]\.path: .+$/m);
    assert.match(result.stderr, /^invalid\.yml:4 routes\[0\]\.upstream: .+$/m);
    assert.match(result.stderr, /invalid \(\d+ errors\); not started/);
    assert.doesNotMatch(result.stdout, /gateway listening/);
    assert.equal(existsSync(path.join(dataDir, 'gateway.pid')), false);
  });

  test('a missing configuration file: exit 1 naming it', async () => {
    const result = await runGateway(['start', '--port', '0', '--data-dir', path.join(temp.path, 'missing-data')], { cwd: temp.path });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /proxy\.yml: cannot read .*ENOENT/);
  });

  test('a stored secret file shorter than the minimum: exit 1 naming the file and the minimum, the file left as it was', async () => {
    const dir = path.join(temp.path, 'short-secret');
    const dataDir = path.join(dir, 'data');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(path.join(dir, 'proxy.yml'), configFor(`  - path: /blue\n    upstream: "${blue.origin}"\n`));
    const secretFile = path.join(dataDir, 'jwt-secret');
    writeFileSync(secretFile, 'too-short-secret\n', { mode: 0o600 });
    // JWT_SECRET unset (empty counts as unset): one-process mode falls back to the stored file.
    const result = await runGateway(['start', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir], { cwd: dir, env: { JWT_SECRET: '', API_KEY_SECRET: '' } });
    assert.equal(result.code, 1, result.stderr);
    assert.ok(result.stderr.includes(secretFile), result.stderr);
    assert.match(result.stderr, /JWT_SECRET: .*minimum of 32 characters/);
    assert.doesNotMatch(result.stderr + result.stdout, /too-short-secret/);
    assert.doesNotMatch(result.stdout, /gateway listening/);
    assert.equal(readFileSync(secretFile, 'utf8'), 'too-short-secret\n', 'the stored secret was replaced');
    assert.equal(existsSync(path.join(dataDir, 'gateway.pid')), false);
  });

  test('writes the pid file once listening; SIGTERM drains, removes it and exits 0', async () => {
    const gateway = await startGatewayProcess({ config: configFor(`  - { path: /app/*, upstream: "${blue.origin}" }\n`) });
    try {
      const pidFile = path.join(gateway.dataDir, 'gateway.pid');
      await gateway.waitForOutput('pid file written');
      assert.equal(readFileSync(pidFile, 'utf8').trim(), String(gateway.pid));
      assert.equal(statSync(gateway.dataDir).mode & 0o777, 0o700);
      assert.equal((await request(`${gateway.url}/app/x`)).text, 'blue');

      gateway.signal('SIGTERM');
      assert.equal(await exitOf(gateway), 0);
      assert.equal(existsSync(pidFile), false, 'pid file left behind');
      assert.ok(gateway.output.some((line) => line.includes('gateway stopped')));
      // Only JSON lines while the gateway runs: log shippers parse every one.
      for (const line of gateway.output) assert.doesNotThrow(() => JSON.parse(line), `not JSON: ${line}`);
    } finally {
      await gateway.stop();
    }
  });

  test('run as the installed command (the bin executed through its shebang), the gateway has its V8 heap flags and serves', async () => {
    const dir = path.join(temp.path, 'as-command');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'proxy.yml'), configFor(`  - { path: /app/*, upstream: "${blue.origin}" }\n`));
    // Not `node <bin>`: the kernel runs the shebang, as `npx gateway` and node_modules/.bin do.
    const child = spawn(GATEWAY_BIN, ['start', '--role', 'data-plane', '--port', '0', '--host', '127.0.0.1', '--data-dir', path.join(dir, 'data')], {
      cwd: dir,
      env: { ...cliEnv(), PATH: `${path.dirname(process.execPath)}:${process.env['PATH'] ?? ''}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    try {
      const listening = await waitFor(`"gateway listening"; so far:\n${output}`, () => output.split('\n').find((line) => line.includes('gateway listening')), 15_000);
      const port = (JSON.parse(listening) as { port: number }).port;
      assert.equal((await request(`http://127.0.0.1:${port}/app/x`)).text, 'blue');
      const argv = (readIfExists(`/proc/${child.pid}/cmdline`) ?? '').split('\0');
      assert.ok(argv.includes('--max-semi-space-size=32'), `node runs with the shebang's flags: ${argv.join(' ')}`);
      assert.deepEqual(GATEWAY_COMMAND.slice(0, -1), ['--max-semi-space-size=32'], 'tests and benchmarks spawn it with the same flags');
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });

  test('SIGINT stops it the same way', async () => {
    const gateway = await startGatewayProcess({ config: configFor(`  - { path: /app/*, upstream: "${blue.origin}" }\n`) });
    try {
      await gateway.waitForOutput('pid file written');
      gateway.signal('SIGINT');
      assert.equal(await exitOf(gateway), 0);
      assert.equal(existsSync(path.join(gateway.dataDir, 'gateway.pid')), false);
    } finally {
      await gateway.stop();
    }
  });

  test('a second stop signal exits at once, without waiting for in-flight requests', async () => {
    const slow = await startUpstream({ handler: (_req, res) => setTimeout(() => res.end('late'), 8000) });
    const gateway = await startGatewayProcess({ config: configFor(`  - { path: /slow, upstream: "${slow.origin}" }\n`) });
    try {
      await gateway.waitForOutput('pid file written');
      const inFlight = request(`${gateway.url}/slow`).catch((error: unknown) => error);
      await waitFor('the request to reach the upstream', () => (slow.requests.length > 0 || slow.openSockets > 0 ? true : undefined));
      gateway.signal('SIGTERM');
      await gateway.waitForOutput('stopping');
      const started = Date.now();
      gateway.signal('SIGTERM');
      assert.equal(await exitOf(gateway), 1);
      assert.ok(Date.now() - started < 3000, 'the second signal did not exit at once');
      assert.equal(existsSync(path.join(gateway.dataDir, 'gateway.pid')), false);
      await inFlight;
    } finally {
      await gateway.stop();
      await slow.close();
    }
  });

  test('refuses to start while the pid file names another live gateway', async () => {
    // A live process whose command line names a gateway stands in for a running one.
    const holder = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', 'fake-gateway'], { stdio: 'ignore' });
    try {
      const dataDir = path.join(temp.path, 'taken');
      mkdirSync(dataDir, { recursive: true });
      const pidFile = path.join(dataDir, 'gateway.pid');
      writeFileSync(pidFile, `${holder.pid}\n`);
      writeFileSync(path.join(temp.path, 'taken.yml'), configFor(`  - { path: /app/*, upstream: "${blue.origin}" }\n`));
      const result = await runGateway(['start', '--config', 'taken.yml', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir], { cwd: temp.path });
      assert.equal(result.code, 1);
      assert.match(result.stderr, new RegExp(`already running .*pid ${holder.pid}`));
      assert.doesNotMatch(result.stdout, /gateway listening/);
      assert.equal(readFileSync(pidFile, 'utf8'), `${holder.pid}\n`, 'the live pid file was touched');
    } finally {
      holder.kill('SIGKILL');
    }
  });

  test('a pid file naming a live process that is not a gateway (a recycled pid) is replaced', async () => {
    const bystander = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    const dataDir = path.join(temp.path, 'recycled');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(path.join(dataDir, 'gateway.pid'), `${bystander.pid}\n`);
    writeFileSync(path.join(temp.path, 'recycled.yml'), configFor(`  - { path: /app/*, upstream: "${blue.origin}" }\n`));
    const child = spawn(process.execPath, [...GATEWAY_COMMAND, 'start', '--config', 'recycled.yml', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir], {
      cwd: temp.path,
      env: cliEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    try {
      await waitFor(`the pid file written; output:\n${output}`, () => (output.includes('pid file written') ? true : undefined), 15_000);
      const pid = Number(readFileSync(path.join(dataDir, 'gateway.pid'), 'utf8').trim());
      assert.equal(pid, child.pid);
      assert.equal(bystander.exitCode, null, 'the bystander was left alone');
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
      bystander.kill('SIGKILL');
    }
  });

  test('replaces a stale pid file', async () => {
    const dataDir = path.join(temp.path, 'stale');
    mkdirSync(dataDir, { recursive: true });
    const pidFile = path.join(dataDir, 'gateway.pid');
    writeFileSync(pidFile, `${await deadPid()}\n`);
    const gateway = await startGatewayProcess({ config: configFor(`  - { path: /app/*, upstream: "${blue.origin}" }\n`), args: ['--data-dir', dataDir] });
    try {
      await gateway.waitForOutput('pid file written');
      assert.equal(readFileSync(pidFile, 'utf8').trim(), String(gateway.pid));
      gateway.signal('SIGTERM');
      assert.equal(await exitOf(gateway), 0);
      assert.equal(existsSync(pidFile), false);
    } finally {
      await gateway.stop();
    }
  });

  test('loads .env from the working directory', async () => {
    const dir = path.join(temp.path, 'dotenv');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'bad.yml'), INVALID);
    writeFileSync(path.join(dir, '.env'), 'GATEWAY_CONFIG=bad.yml\nGATEWAY_DATA_DIR=state\n');
    const result = await runGateway(['start', '--port', '0'], { cwd: dir });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^bad\.yml:3 routes\[0\]\.path: /m);
    assert.equal(statSync(path.join(dir, 'state')).mode & 0o777, 0o700, 'GATEWAY_DATA_DIR from .env was not used');
  });

  test('a SIGHUP that arrives while starting is not fatal and is applied once listening', { skip: process.platform !== 'linux' && 'needs /proc and mkfifo' }, async () => {
    const dir = path.join(temp.path, 'early-hup');
    mkdirSync(dir);
    const gateway = startOnFifo(dir);
    try {
      await waitFor('the SIGHUP handler', () => (catchesSighup(gateway.child.pid!) ? true : undefined));
      gateway.child.kill('SIGHUP');
      await gateway.waitForOutput('SIGHUP received while starting');
      await gateway.feed(configFor(`  - { path: /app/*, upstream: "${blue.origin}" }\n`));
      await gateway.waitForOutput('gateway listening');
      // The remembered SIGHUP now re-reads the file: give it the next version.
      await gateway.feed(configFor(`  - { path: /app/*, upstream: "${green.origin}" }\n`));
      await gateway.waitForOutput('SIGHUP reload applied');
      const port = (JSON.parse(gateway.output().split('\n').find((line) => line.includes('gateway listening'))!) as { port: number }).port;
      assert.equal((await request(`http://127.0.0.1:${port}/app/x`)).text, 'green');
      gateway.child.kill('SIGTERM');
      assert.equal((await gateway.exited)[0], 0);
    } finally {
      gateway.child.kill('SIGKILL');
    }
  });

  test('SIGTERM while starting: stops as soon as it is up, exit 0, no pid file', { skip: process.platform !== 'linux' && 'needs /proc and mkfifo' }, async () => {
    const dir = path.join(temp.path, 'early-term');
    mkdirSync(dir);
    const gateway = startOnFifo(dir);
    try {
      await waitFor('the signal handlers', () => (catchesSighup(gateway.child.pid!) ? true : undefined));
      gateway.child.kill('SIGTERM');
      await gateway.waitForOutput('stopping');
      await gateway.feed(configFor(`  - { path: /app/*, upstream: "${blue.origin}" }\n`));
      assert.equal((await gateway.exited)[0], 0, gateway.output());
      assert.equal(existsSync(path.join(gateway.dataDir, 'gateway.pid')), false);
    } finally {
      gateway.child.kill('SIGKILL');
    }
  });

  describe('SIGHUP', () => {
    let gateway: GatewayProcess;
    before(async () => {
      gateway = await startGatewayProcess({ config: configFor(`  - { path: /app/*, upstream: "${blue.origin}" }\n`) });
      await gateway.waitForOutput('pid file written');
    });
    after(async () => {
      await gateway?.stop();
    });

    test('reloads the configuration without restarting', async () => {
      gateway.writeConfig(configFor(`  - { path: /app/*, upstream: "${green.origin}" }\n`));
      gateway.signal('SIGHUP');
      await gateway.waitForOutput('SIGHUP reload applied');
      assert.equal((await request(`${gateway.url}/app/x`)).text, 'green');
      assert.equal(gateway.child.exitCode, null);
      assert.equal(readIfExists(path.join(gateway.dataDir, 'gateway.pid'))?.trim(), String(gateway.pid));
    });

    test('an invalid file is rejected, logged, and the gateway keeps serving', async () => {
      gateway.writeConfig(INVALID);
      gateway.signal('SIGHUP');
      await gateway.waitForOutput('SIGHUP reload rejected');
      assert.equal((await request(`${gateway.url}/app/x`)).text, 'green');
      assert.equal(gateway.child.exitCode, null);
    });
  });
});
