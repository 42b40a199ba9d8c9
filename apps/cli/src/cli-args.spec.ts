import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCommandArgs, parsePort, UsageError, wantsHelp } from './cli-args';

const OPTIONS = {
  config: { type: 'string', valueName: 'FILE', description: 'config' },
  force: { type: 'boolean', description: 'force' },
} as const;

function usageMessage(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof UsageError, String(error));
    assert.equal(error.command, 'init');
    return error.message;
  }
  assert.fail('no UsageError thrown');
}

describe('parseCommandArgs', () => {
  test('typed values: strings, booleans, absent options undefined', () => {
    const { values } = parseCommandArgs('init', ['--config', 'a.yml', '--force'], OPTIONS);
    assert.equal(values.config, 'a.yml');
    assert.equal(values.force, true);
    assert.deepEqual(Object.keys(parseCommandArgs('init', [], OPTIONS).values), []);
    assert.equal(parseCommandArgs('init', ['--config=b.yml'], OPTIONS).values.config, 'b.yml');
  });

  test('rewrites parseArgs errors into messages that name the option', () => {
    assert.equal(usageMessage(() => parseCommandArgs('init', ['--nope'], OPTIONS)), "unknown option '--nope'");
    assert.equal(usageMessage(() => parseCommandArgs('init', ['-x'], OPTIONS)), "unknown option '-x'");
    assert.equal(usageMessage(() => parseCommandArgs('init', ['--config'], OPTIONS)), "option '--config' needs a value");
    assert.match(usageMessage(() => parseCommandArgs('init', ['--config', '--force'], OPTIONS)), /^option '--config' needs a value \(write --config=VALUE/);
    assert.equal(usageMessage(() => parseCommandArgs('init', ['--force=1'], OPTIONS)), "option '--force' does not take a value");
    assert.equal(usageMessage(() => parseCommandArgs('init', ['extra'], OPTIONS)), "unexpected argument 'extra'");
  });

  test('positionals only up to the allowed count', () => {
    assert.deepEqual(parseCommandArgs('init', ['one'], OPTIONS, 1).positionals, ['one']);
    assert.equal(usageMessage(() => parseCommandArgs('init', ['one', 'two'], OPTIONS, 1)), "unexpected argument 'two'");
  });
});

describe('parsePort', () => {
  test('accepts 0..65535', () => {
    assert.equal(parsePort('0', 'start'), 0);
    assert.equal(parsePort('8080', 'start'), 8080);
    assert.equal(parsePort('65535', 'start'), 65535);
    assert.equal(parsePort(undefined, 'start'), undefined);
  });

  test('refuses anything else, naming --port', () => {
    for (const raw of ['65536', '-1', '1e3', '0x10', '80.0', ' 80', '', 'abc', '123456']) {
      assert.throws(() => parsePort(raw, 'start'), (error: unknown) => error instanceof UsageError && /--port/.test(error.message), raw);
    }
  });
});

describe('wantsHelp', () => {
  test('-h or --help before a `--`', () => {
    assert.equal(wantsHelp(['--config', 'x', '--help']), true);
    assert.equal(wantsHelp(['-h']), true);
    assert.equal(wantsHelp(['--config', 'x']), false);
    assert.equal(wantsHelp(['--', '--help']), false);
  });
});
