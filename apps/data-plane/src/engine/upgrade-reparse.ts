import type http from 'node:http';
import type { Socket } from 'node:net';

/**
 * Hands a request that asked for an upgrade the gateway will not perform back to node's HTTP
 * parser, as if the Upgrade header had never been sent.
 *
 * With an 'upgrade' listener node stops parsing at the end of the head of every request carrying
 * `Connection: Upgrade` and `Upgrade` — a POST's body included, which lands in `head`. Serving such a
 * request from there would forward a Content-Length whose bytes never follow, and the upstream
 * connection would read the next request's bytes as that body. So its head is written again
 * without the upgrade (the Upgrade field and the `upgrade` token of Connection), put back in front
 * of the unread bytes, and the socket is handed to the server as a new connection (node documents
 * emitting 'connection' for this): the body, keep-alive and pipelining are node's own again.
 */
export function reparseWithoutUpgrade(server: http.Server, req: http.IncomingMessage, socket: Socket, head: Buffer): void {
  const lines = [`${req.method ?? 'GET'} ${req.url ?? '/'} HTTP/${req.httpVersion}`];
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    const lower = name.toLowerCase();
    if (lower === 'upgrade') continue;
    let value = raw[i + 1] as string;
    if (lower === 'connection') {
      value = value
        .split(',')
        .map((token) => token.trim())
        .filter((token) => token !== '' && token.toLowerCase() !== 'upgrade')
        .join(', ');
      if (value === '') continue;
    }
    lines.push(`${name}: ${value}`);
  }
  socket.unshift(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), head]));
  server.emit('connection', socket);
}
