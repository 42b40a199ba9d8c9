import net from 'node:net';
import type { ClientSequence } from './hostile-requests';

export interface PlayedSequence {
  /** Everything the gateway sent back, as latin1 text. */
  readonly received: string;
  /** The gateway still held the connection `closeWithinMs` after the client half-closed it, stalled, or asked it to close. */
  readonly hung: boolean;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Status codes of every response head in a byte stream (the upstream behind the fuzz answers without any). */
export function responseStatuses(received: string): number[] {
  return [...received.matchAll(/HTTP\/1\.[01] (\d{3}) /g)].map((match) => Number(match[1]));
}

function fragments(bytes: Buffer, cuts: readonly number[]): Buffer[] {
  const out: Buffer[] = [];
  let start = 0;
  for (const cut of cuts) {
    out.push(bytes.subarray(start, cut));
    start = cut;
  }
  out.push(bytes.subarray(start));
  return out;
}

/**
 * Plays one generated sequence on ONE raw TCP connection: every step written as its fragments,
 * optionally waiting for the answer, then the sequence's ending. Write errors after the gateway
 * closed the connection are expected (it closes after a 400, 408, 413 or 431) and ignored.
 */
export async function playSequence(port: number, sequence: ClientSequence, options: { closeWithinMs: number }): Promise<PlayedSequence> {
  const socket = net.connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  let closed = false;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    const waiter = wake;
    wake = undefined;
    waiter?.();
  };
  socket.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    notify();
  });
  socket.on('error', () => undefined);
  socket.on('close', () => {
    closed = true;
    notify();
  });
  /** Resolves on the next data or close, or after `ms`. */
  const nextEvent = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => {
        wake = undefined;
        resolve();
      }, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  await new Promise<void>((resolve) => {
    socket.once('connect', resolve);
    socket.once('close', resolve);
  });

  const truncated = sequence.ending === 'truncate-last' || sequence.ending === 'stall';
  const steps = truncated ? truncateLast(sequence.steps) : sequence.steps;
  for (const step of steps) {
    if (closed) break;
    for (const fragment of fragments(Buffer.from(step.bytes, 'latin1'), step.cuts)) {
      if (closed) break;
      socket.write(fragment);
      if (step.gapMs > 0) await sleep(step.gapMs);
    }
    if (step.awaitReply && !closed) {
      // The first bytes of the answer, then a short quiet spell so a whole response has arrived.
      const before = chunks.length;
      await nextEvent(400);
      while (!closed && chunks.length > before) {
        const seen = chunks.length;
        await nextEvent(25);
        if (chunks.length === seen) break;
      }
    }
  }

  let hung = false;
  switch (sequence.ending) {
    case 'reset':
      if (!closed) socket.resetAndDestroy();
      break;
    case 'destroy':
      socket.destroy();
      break;
    case 'half-close':
    case 'truncate-last':
    case 'stall':
    case 'await-close': {
      if (sequence.ending === 'half-close' || sequence.ending === 'truncate-last') socket.end();
      const deadline = Date.now() + options.closeWithinMs;
      while (!closed && Date.now() < deadline) await nextEvent(deadline - Date.now());
      hung = !closed;
      socket.destroy();
      break;
    }
  }
  return { received: Buffer.concat(chunks).toString('latin1'), hung };
}

/** The last step cut in half: a request that stops mid-head or mid-body before the client leaves. */
function truncateLast(steps: ClientSequence['steps']): ClientSequence['steps'] {
  const last = steps[steps.length - 1];
  if (last === undefined) return steps;
  const length = Math.max(1, Math.floor(last.bytes.length / 2));
  return [...steps.slice(0, -1), { ...last, bytes: last.bytes.slice(0, length), cuts: last.cuts.filter((c) => c < length) }];
}
