import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The loopback upstream of generated route tables (scale, scrape): 200 with two bytes, whatever the path. */
export async function startTwoByteUpstream(): Promise<{ origin: string; close(): void }> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-length': '2' });
    res.end('ok');
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

export const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
