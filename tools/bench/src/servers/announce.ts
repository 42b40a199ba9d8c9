import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Shared by the child server scripts: listen on 127.0.0.1 (ephemeral port), print the one JSON
 * line the harness waits for, and exit cleanly on SIGTERM/SIGINT (so `--cpu-prof` can write its
 * profile).
 */
export function listenAndAnnounce(server: Server): void {
  server.listen(0, '127.0.0.1', () => {
    const port = (server.address() as AddressInfo).port;
    process.stdout.write(`${JSON.stringify({ bench: 'listening', port })}\n`);
  });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => process.exit(0));
  // The harness holds our stdin open; if it dies without stopping us (SIGKILL), the pipe closes
  // and we go too.
  process.stdin.on('end', () => process.exit(0));
  process.stdin.resume();
}
