import type http from 'node:http';
import { withTimeout } from './loopback-upstream';

/**
 * Requests an upstream holds until the test answers them, one at a time, in arrival order. Made
 * for health checks: a checker sends its next check only after the previous one got its verdict,
 * so the arrival of the next check is the moment the previous verdict is known.
 */
export class HeldResponses {
  private readonly held: http.ServerResponse[] = [];
  private waiters: Array<(res: http.ServerResponse) => void> = [];

  /** The upstream's handler hands each request's response here instead of answering it. */
  push(res: http.ServerResponse): void {
    const waiter = this.waiters.shift();
    if (waiter) waiter(res);
    else this.held.push(res);
  }

  /** The next held request (bounded wait). */
  next(ms = 10_000): Promise<http.ServerResponse> {
    const res = this.held.shift();
    if (res) return Promise.resolve(res);
    return withTimeout(new Promise((resolve) => this.waiters.push(resolve)), ms, 'no request arrived');
  }

  /** Answers the next request, then waits for the one after it (the checker has taken the verdict by then). */
  async answer(status: number, body = 'ok'): Promise<void> {
    const res = await this.next();
    res.writeHead(status);
    res.end(body);
    await this.following();
  }

  /** Waits for the next request without taking it (it stays first in line). */
  async following(): Promise<void> {
    const res = await this.next();
    this.held.unshift(res);
  }
}
