import 'reflect-metadata';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { COMMAND_REPLIES_CHANNEL, COMMANDS_CHANNEL, InProcessBus, PRESENCE_CHANNEL, type CommandMessage } from '@gateway/events';
import { CommandDispatcher, REPLY_WAIT_MS } from './command-dispatcher.service';
import { DataPlaneDirectory } from './data-plane-directory.service';

/*
 * The dispatcher and the directory on the in-process bus; the test publishes what data planes
 * would (presence, replies), including what a broken or foreign one might.
 */
describe('command dispatcher and data-plane directory', () => {
  const bus = new InProcessBus();
  const directory = new DataPlaneDirectory(bus);
  const dispatcher = new CommandDispatcher(bus, directory);
  const commands: CommandMessage[] = [];
  /** Data planes that answer every command (the test's stand-ins), with what they answer. */
  const answering = new Map<string, number>();

  const announce = (instanceId: string) => bus.publish(PRESENCE_CHANNEL, { instanceId, configVersion: 1, startedAt: new Date().toISOString(), at: new Date().toISOString() });
  const answer = (commandId: string, instanceId: string, purged: number) =>
    bus.publish(COMMAND_REPLIES_CHANNEL, { commandId, instanceId, at: new Date().toISOString(), result: { subject: 'cache', purged } });
  const settle = () => new Promise((r) => setTimeout(r, 20));

  before(async () => {
    directory.onModuleInit();
    dispatcher.onModuleInit();
    await bus.subscribe<CommandMessage>(COMMANDS_CHANNEL, (command) => {
      commands.push(command);
      for (const [instanceId, purged] of answering) void answer(command.id, instanceId, purged);
    });
  });
  after(async () => {
    dispatcher.onModuleDestroy();
    directory.onModuleDestroy();
    await bus.close();
  });

  test('with no live data plane it waits the whole bound and keeps what arrives', async () => {
    answering.set('dp-late', 4);
    const started = Date.now();
    const dispatched = await dispatcher.dispatch({ kind: 'cache-purge', routeId: 'r' }, 'cache');
    assert.ok(Date.now() - started >= REPLY_WAIT_MS - 20);
    assert.deepEqual(dispatched.replies.map((r) => [r.instanceId, r.result.purged]), [['dp-late', 4]]);
    assert.deepEqual(dispatched.missing, []);
    assert.equal(commands.at(-1)?.kind, 'cache-purge');
    answering.clear();
  });

  test('every live data plane answered: resolves at once, replies by instance id, each command with its own id', async () => {
    await announce('dp-b');
    await announce('dp-a');
    await announce('dp-b');
    await settle();
    assert.deepEqual(directory.live().map((p) => p.instanceId), ['dp-a', 'dp-b']);
    answering.set('dp-b', 2).set('dp-a', 1);
    const started = Date.now();
    const dispatched = await dispatcher.dispatch({ kind: 'cache-purge', routeId: 'r' }, 'cache');
    assert.ok(Date.now() - started < REPLY_WAIT_MS / 2, 'did not wait for the bound');
    assert.deepEqual(dispatched.replies.map((r) => [r.instanceId, r.result.purged]), [['dp-a', 1], ['dp-b', 2]]);
    assert.deepEqual(dispatched.missing, []);
    const ids = commands.map((c) => c.id);
    assert.equal(new Set(ids).size, ids.length);
    answering.clear();
  });

  test('a live data plane that does not answer is listed as missing after the bound; malformed, foreign, duplicate and wrong-subject replies are ignored', async () => {
    await announce('dp-a');
    await announce('dp-b');
    await settle();
    const pending = dispatcher.dispatch({ kind: 'cache-purge', routeId: 'r' }, 'cache');
    await settle();
    const id = commands.at(-1)!.id;
    await bus.publish(COMMAND_REPLIES_CHANNEL, { commandId: id, instanceId: 'dp-b', at: new Date().toISOString(), result: { subject: 'cache', purged: 'all' } });
    await bus.publish(COMMAND_REPLIES_CHANNEL, { commandId: id, instanceId: 'dp-b', at: new Date().toISOString(), result: { subject: 'circuit-breaker', breaker: null } });
    await answer('someone-elses-command', 'dp-b', 9);
    await answer(id, 'dp-a', 3);
    await answer(id, 'dp-a', 30);
    const dispatched = await pending;
    assert.deepEqual(dispatched.replies.map((r) => [r.instanceId, r.result.purged]), [['dp-a', 3]]);
    assert.deepEqual(dispatched.missing, ['dp-b']);
  });

  test('a data plane not heard from for 3 presence intervals is no longer live; malformed presence is ignored', async () => {
    await bus.publish(PRESENCE_CHANNEL, { instanceId: 'dp-broken' });
    await announce('dp-c');
    await settle();
    const now = Date.now();
    assert.ok(directory.live(now).some((p) => p.instanceId === 'dp-c'));
    assert.ok(!directory.live(now).some((p) => p.instanceId === 'dp-broken'));
    assert.deepEqual(directory.live(now + 6001), []);
  });
});
