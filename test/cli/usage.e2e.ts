import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDir, REPO_ROOT } from '@gateway/testing';
import { runGateway as runGatewayIn } from './gateway-cli';

const COMMANDS = ['start', 'init', 'migrate', 'config:validate', 'config:reload', 'status', 'routes:list', 'logs'] as const;

describe('gateway help, version and usage errors', () => {
  // An empty working directory: no proxy.yml or .env of the repository can leak in.
  const cwd = makeTempDir('gateway-cli-usage-');
  after(() => cwd.remove());
  const runGateway = (args: readonly string[]) => runGatewayIn(args, { cwd: cwd.path });

  test('--help lists every command and the exit codes', async () => {
    const result = await runGateway(['--help']);
    assert.equal(result.code, 0);
    for (const name of [...COMMANDS, 'help']) assert.match(result.stdout, new RegExp(`^  ${name}\\b`, 'm'));
    assert.match(result.stdout, /Exit codes: 0 success, 1 failure, 2 usage error/);
    assert.equal(result.stderr, '');
  });

  test('help with no command is the same as --help', async () => {
    const [viaFlag, viaCommand] = await Promise.all([runGateway(['--help']), runGateway(['help'])]);
    assert.equal(viaCommand.code, 0);
    assert.equal(viaCommand.stdout, viaFlag.stdout);
  });

  for (const name of [...COMMANDS, 'help']) {
    test(`${name} --help, -h and help ${name} print usage, options and examples`, async () => {
      const [long, short, viaHelp] = await Promise.all([runGateway([name, '--help']), runGateway([name, '-h']), runGateway(['help', name])]);
      for (const result of [long, short, viaHelp]) {
        assert.equal(result.code, 0, result.stderr);
        assert.equal(result.stderr, '');
      }
      assert.match(long.stdout, new RegExp(`^Usage: gateway ${name}`, 'm'));
      assert.match(long.stdout, /^Options:$/m);
      assert.match(long.stdout, /^Examples:$/m);
      assert.match(long.stdout, /-h, --help/);
      assert.equal(short.stdout, long.stdout);
      assert.equal(viaHelp.stdout, long.stdout);
    });
  }

  test('each command documents its options', async () => {
    const expected: Record<(typeof COMMANDS)[number], string[]> = {
      start: ['--config FILE', '--port N', '--host HOST', '--data-dir DIR', '--role ROLE'],
      init: ['--dir DIR', '--force', '--admin-email EMAIL', '--skip-admin'],
      migrate: ['--data-dir DIR'],
      'config:validate': ['--config FILE'],
      'config:reload': ['--dry-run', '--config FILE', '--data-dir DIR'],
      status: ['--url URL', '--data-dir DIR', '--json'],
      'routes:list': ['--url URL', '--token JWT', '--json', '--deleted'],
      logs: ['--follow', '--limit N', '--level LEVEL', '--token JWT'],
    };
    for (const name of COMMANDS) {
      const { stdout } = await runGateway([name, '--help']);
      for (const option of expected[name]) assert.ok(stdout.includes(option), `${name} --help lacks ${option}`);
    }
  });

  test('--help wins over other arguments, even invalid ones', async () => {
    const result = await runGateway(['start', '--port', 'nope', '--help']);
    assert.equal(result.code, 0);
    assert.match(result.stdout, /^Usage: gateway start/m);
  });

  test('--version prints the package version', async () => {
    const { version } = JSON.parse(readFileSync(path.join(REPO_ROOT, 'apps', 'cli', 'package.json'), 'utf8')) as { version: string };
    const result = await runGateway(['--version']);
    assert.equal(result.code, 0);
    assert.equal(result.stdout.trim(), version);
  });

  test('no command: the command list on stderr, exit 2', async () => {
    const result = await runGateway([]);
    assert.equal(result.code, 2);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /Usage: gateway <command>/);
  });

  test('an unknown command exits 2 and points to --help', async () => {
    const result = await runGateway(['frobnicate']);
    assert.equal(result.code, 2);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /^gateway: unknown command 'frobnicate'$/m);
    assert.match(result.stderr, /gateway --help/);
  });

  test('help for an unknown command exits 2', async () => {
    const result = await runGateway(['help', 'frobnicate']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /unknown command 'frobnicate'/);
  });

  test('an unknown option exits 2 and names it, for every command', async () => {
    for (const name of COMMANDS) {
      const result = await runGateway([name, '--bogus']);
      assert.equal(result.code, 2, `${name}: ${result.stderr}`);
      assert.match(result.stderr, new RegExp(`^gateway ${name}: unknown option '--bogus'$`, 'm'));
      assert.match(result.stderr, new RegExp(`gateway ${name} --help`));
    }
    const global = await runGateway(['--bogus']);
    assert.equal(global.code, 2);
    assert.match(global.stderr, /unknown option '--bogus'/);
  });

  test('a missing option value exits 2 and names the option', async () => {
    const cases: Array<[string[], string]> = [
      [['config:validate', '--config'], '--config'],
      [['start', '--port'], '--port'],
      [['config:reload', '--data-dir'], '--data-dir'],
      [['init', '--dir'], '--dir'],
      [['start', '--config', '--port', '1'], '--config'],
    ];
    for (const [args, option] of cases) {
      const result = await runGateway(args);
      assert.equal(result.code, 2, args.join(' '));
      assert.match(result.stderr, new RegExp(`option '${option}' needs a value`), result.stderr);
    }
  });

  test('a value given to a flag, or a stray argument, exits 2', async () => {
    const flag = await runGateway(['init', '--force=yes']);
    assert.equal(flag.code, 2);
    assert.match(flag.stderr, /option '--force' does not take a value/);
    const stray = await runGateway(['config:validate', 'proxy.yml']);
    assert.equal(stray.code, 2);
    assert.match(stray.stderr, /unexpected argument 'proxy\.yml'/);
  });

  test('a bad --port exits 2 and names --port', async () => {
    for (const port of ['65536', '-1', 'abc', '80.5', '']) {
      const result = await runGateway(['start', `--port=${port}`, '--config', 'does-not-matter.yml']);
      assert.equal(result.code, 2, `--port=${port}: ${result.stderr}`);
      assert.match(result.stderr, /--port/);
      assert.doesNotMatch(result.stdout, /gateway listening/);
    }
  });
});
