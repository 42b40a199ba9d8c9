import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { OpenWebSockets } from './open-websockets';
import type { RouteTable } from './route-table';
import type { WebSocketConnection } from './websocket-connection';

/** A connection that only records being asked to go away (the registry never touches its sockets). */
function connection(routeId: string): WebSocketConnection & { wentAway: number } {
  const c = { routeId, wentAway: 0, goAway: () => (c.wentAway += 1) };
  return c as unknown as WebSocketConnection & { wentAway: number };
}

/** The part of a table retain() reads: its routes' ids and websocket flags. */
function table(routes: Array<[string, boolean]>): RouteTable {
  return { routes: routes.map(([id, enabled]) => ({ id, route: { websocket: { enabled, idleTimeout: 60_000, maxConnections: 10 } } })) } as unknown as RouteTable;
}

describe('OpenWebSockets', () => {
  it('counts handshakes under way against the limit and gives their places back', () => {
    const open = new OpenWebSockets();
    assert.equal(open.reserve('a', 2), true);
    assert.equal(open.reserve('a', 2), true);
    assert.equal(open.reserve('a', 2), false);
    assert.equal(open.reserve('b', 2), true, 'the limit is per route');
    open.release('a');
    assert.equal(open.reserve('a', 2), true);
  });

  it('an added connection keeps its place until removed, and shows in the counts', () => {
    const open = new OpenWebSockets();
    open.reserve('a', 1);
    const c = connection('a');
    open.add(c);
    assert.equal(open.reserve('a', 1), false);
    assert.deepEqual([...open.counts()], [['a', 1]]);
    open.remove(c);
    assert.deepEqual([...open.counts()], []);
    assert.equal(open.reserve('a', 1), true);
  });

  it('retain ends the connections of routes gone, disabled or without websocket, and keeps the others', () => {
    const open = new OpenWebSockets();
    const [kept, gone, off] = [connection('kept'), connection('gone'), connection('off')];
    for (const c of [kept, gone, off]) {
      open.reserve(c.routeId, 5);
      open.add(c);
    }
    assert.equal(open.retain(table([['kept', true], ['off', false]])), 2);
    assert.deepEqual([kept.wentAway, gone.wentAway, off.wentAway], [0, 1, 1]);
    // A handshake that completes after its route left the table is ended at once.
    const late = connection('gone');
    open.reserve('gone', 5);
    open.add(late);
    assert.equal(late.wentAway, 1);
  });

  it('a swap with no connection open does not walk the table; a later handshake is still checked against it', () => {
    const open = new OpenWebSockets();
    let reads = 0;
    const routes = table([['ws', true], ['plain', false]]).routes;
    const counted = {
      get routes() {
        reads += 1;
        return routes;
      },
    } as unknown as RouteTable;
    assert.equal(open.retain(counted), 0);
    assert.equal(reads, 0, 'the routes were not read');
    const [accepted, refused] = [connection('ws'), connection('plain')];
    for (const c of [accepted, refused]) {
      open.reserve(c.routeId, 5);
      open.add(c);
    }
    assert.deepEqual([accepted.wentAway, refused.wentAway], [0, 1]);
    assert.equal(reads, 1, 'read once per table');
  });

  it('endAll ends every connection (drain), later ones too', () => {
    const open = new OpenWebSockets();
    const c = connection('a');
    open.reserve('a', 5);
    open.add(c);
    assert.equal(open.endAll(), 1);
    assert.equal(c.wentAway, 1);
    const late = connection('a');
    open.add(late);
    assert.equal(late.wentAway, 1);
  });
});
