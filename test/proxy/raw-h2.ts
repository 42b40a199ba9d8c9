import tls from 'node:tls';
import { withTimeout } from '@gateway/testing';

/*
 * A client that writes HTTP/2 frames by hand (RFC 9113 4.1), for what node's own client refuses to
 * do: ignore the server's stream limit, reset streams in the same write that opened them.
 */

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
export const FRAME = { HEADERS: 1, RST_STREAM: 3, SETTINGS: 4, PING: 6, GOAWAY: 7 } as const;
const END_STREAM = 0x1;
const END_HEADERS = 0x4;
const ACK = 0x1;

export interface Frame {
  type: number;
  flags: number;
  streamId: number;
  payload: Buffer;
}

export function frame(type: number, flags: number, streamId: number, payload = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head.writeUInt8(type, 3);
  head.writeUInt8(flags, 4);
  head.writeUInt32BE(streamId, 5);
  return Buffer.concat([head, payload]);
}

/** `GET path` as one HEADERS frame: static-table :method GET and :scheme https, literal :path and :authority (RFC 7541). */
export function getHeaders(streamId: number, path: string): Buffer {
  const literal = (index: number, value: string): Buffer => Buffer.concat([Buffer.from([index, value.length]), Buffer.from(value)]);
  return frame(FRAME.HEADERS, END_STREAM | END_HEADERS, streamId, Buffer.concat([Buffer.from([0x82, 0x87]), literal(0x04, path), literal(0x01, 'localhost')]));
}

export function rstStream(streamId: number, code = 0x8 /* CANCEL */): Buffer {
  const payload = Buffer.alloc(4);
  payload.writeUInt32BE(code);
  return frame(FRAME.RST_STREAM, 0, streamId, payload);
}

export interface RawSession {
  /** Every frame received so far. */
  readonly frames: Frame[];
  /** Resolves when the server has closed the connection. */
  readonly closed: Promise<void>;
  write(data: Buffer): void;
  /** Resolves with the first received frame `match` accepts (or fails after `timeoutMs`). */
  waitFor(match: (frame: Frame) => boolean, timeoutMs?: number): Promise<Frame>;
  close(): void;
}

/** Connects, exchanges SETTINGS (acknowledging the server's, so its limits are in force) and returns the session. */
export async function rawH2Session(port: number): Promise<RawSession> {
  const socket = tls.connect({ host: '127.0.0.1', port, ALPNProtocols: ['h2'], rejectUnauthorized: false });
  await withTimeout(new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject)), 10_000, 'TLS connect');
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const frames: Frame[] = [];
  const waiters: Array<{ match: (f: Frame) => boolean; resolve: (f: Frame) => void }> = [];
  let pending = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 9) {
      const length = pending.readUIntBE(0, 3);
      if (pending.length < 9 + length) break;
      const received = { type: pending.readUInt8(3), flags: pending.readUInt8(4), streamId: pending.readUInt32BE(5) & 0x7fffffff, payload: pending.subarray(9, 9 + length) };
      pending = pending.subarray(9 + length);
      frames.push(received);
      if (received.type === FRAME.SETTINGS && (received.flags & ACK) === 0) socket.write(frame(FRAME.SETTINGS, ACK, 0));
      for (const waiter of [...waiters]) {
        if (!waiter.match(received)) continue;
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(received);
      }
    }
  });
  const waitFor = (match: (f: Frame) => boolean, timeoutMs = 15_000): Promise<Frame> => {
    const seen = frames.find(match);
    if (seen !== undefined) return Promise.resolve(seen);
    return withTimeout(new Promise<Frame>((resolve) => waiters.push({ match, resolve })), timeoutMs, 'an HTTP/2 frame');
  };
  socket.write(Buffer.concat([PREFACE, frame(FRAME.SETTINGS, 0, 0)]));
  await waitFor((f) => f.type === FRAME.SETTINGS && (f.flags & ACK) === 0);
  // A PING answered after our SETTINGS ACK: the server has applied its own settings by then.
  socket.write(frame(FRAME.PING, 0, 0, Buffer.alloc(8)));
  await waitFor((f) => f.type === FRAME.PING && (f.flags & ACK) !== 0);
  return { frames, closed, write: (data) => socket.write(data), waitFor, close: () => socket.destroy() };
}

/** The error code of a RST_STREAM or GOAWAY frame. */
export function errorCode(received: Frame): number {
  return received.type === FRAME.GOAWAY ? received.payload.readUInt32BE(4) : received.payload.readUInt32BE(0);
}
