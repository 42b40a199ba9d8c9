import net from 'node:net';

/** True when nothing listens on 127.0.0.1:`port` any more (a drained server has closed its listener). */
export function connectionRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

/** Polls until the listener on `port` is gone (bounded; rejects after `timeoutMs`). */
export async function waitForConnectionRefused(port: number, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await connectionRefused(port))) {
    if (Date.now() > until) throw new Error(`127.0.0.1:${port} still accepts connections after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
