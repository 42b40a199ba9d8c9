import http from 'node:http';
import assert from 'node:assert/strict';
import type { ClientResponse } from '@gateway/testing';

/** Helpers of the upstream balancing tests (load-balancing.e2e.ts, upstream-dns.e2e.ts). */

/** Runs `count` requests, `concurrency` at a time, over keep-alive connections. */
export async function load(count: number, concurrency: number, send: (i: number, agent: http.Agent) => Promise<ClientResponse>): Promise<ClientResponse[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const results: ClientResponse[] = new Array<ClientResponse>(count);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const i = next;
      next += 1;
      results[i] = await send(i, agent);
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    agent.destroy();
  }
  return results;
}

export function tally(responses: readonly ClientResponse[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const res of responses) counts.set(`${res.status} ${res.text}`, (counts.get(`${res.status} ${res.text}`) ?? 0) + 1);
  return counts;
}

/** Polls (bounded) until `probe` returns a value. */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
