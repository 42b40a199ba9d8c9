import { randomBytes } from 'node:crypto';
import type http2 from 'node:http2';
import { deferred, withTimeout } from '@gateway/testing';

/*
 * A WebSocket client over one HTTP/2 stream (RFC 8441): node's http2 client sends the extended
 * CONNECT, and RFC 6455 frames are written and read on the stream by hand (the `ws` package speaks
 * only over a socket). Enough for tests: text, binary and close frames, masked as a client must.
 */

export interface Message {
  opcode: number;
  payload: Buffer;
}

export interface H2WebSocket {
  status: number;
  headers: http2.IncomingHttpHeaders;
  /** The answer's body when the handshake was refused (the spec 7.3 JSON). */
  body: string;
  stream: http2.ClientHttp2Stream;
  send(payload: string | Buffer, opcode?: number): void;
  /** Sends a close frame with `code`. */
  close(code: number): void;
  next(): Promise<Message>;
  /** The close code the gateway or the upstream sent (undefined when the stream ended without one). */
  closed: Promise<number | undefined>;
}

export function frame(opcode: number, payload: Buffer): Buffer {
  const mask = randomBytes(4);
  const length = payload.length;
  const head = length < 126 ? Buffer.from([0x80 | opcode, 0x80 | length]) : length < 65536 ? Buffer.from([0x80 | opcode, 0x80 | 126, length >> 8, length & 0xff]) : Buffer.alloc(10);
  if (length >= 65536) {
    head[0] = 0x80 | opcode;
    head[1] = 0x80 | 127;
    head.writeBigUInt64BE(BigInt(length), 2);
  }
  const masked = Buffer.alloc(length);
  for (let i = 0; i < length; i += 1) masked[i] = (payload[i] as number) ^ (mask[i & 3] as number);
  return Buffer.concat([head, mask, masked]);
}

/** Unmasked server frames out of `buffer`; returns the frames and the bytes of an incomplete one. */
function parseFrames(buffer: Buffer): { frames: Message[]; rest: Buffer } {
  const frames: Message[] = [];
  let at = 0;
  for (;;) {
    if (buffer.length - at < 2) break;
    const opcode = (buffer[at] as number) & 0x0f;
    let length = (buffer[at + 1] as number) & 0x7f;
    let header = 2;
    if (length === 126) {
      if (buffer.length - at < 4) break;
      length = buffer.readUInt16BE(at + 2);
      header = 4;
    } else if (length === 127) {
      if (buffer.length - at < 10) break;
      length = Number(buffer.readBigUInt64BE(at + 2));
      header = 10;
    }
    if (buffer.length - at < header + length) break;
    frames.push({ opcode, payload: buffer.subarray(at + header, at + header + length) });
    at += header + length;
  }
  return { frames, rest: buffer.subarray(at) };
}

/** Opens a WebSocket on `path` with an extended CONNECT; resolves once the gateway answered (any status). */
export function openH2WebSocket(session: http2.ClientHttp2Session, path: string, headers: http2.OutgoingHttpHeaders = {}): Promise<H2WebSocket> {
  return withTimeout(
    new Promise((resolve, reject) => {
      const stream = session.request({ ':method': 'CONNECT', ':protocol': 'websocket', ':path': path, ':scheme': 'https', ':authority': 'gw.test', 'sec-websocket-version': '13', ...headers }, { endStream: false });
      const closed = deferred<number | undefined>();
      const queue: Message[] = [];
      const waiting: Array<(message: Message) => void> = [];
      let pending: Buffer = Buffer.alloc(0);
      let closeCode: number | undefined;
      let status = 0;
      let head: http2.IncomingHttpHeaders = {};
      const bodyChunks: Buffer[] = [];
      stream.on('error', () => undefined);
      stream.on('close', () => closed.resolve(closeCode));
      stream.on('response', (answer) => {
        status = Number(answer[':status']);
        head = answer;
        if (status !== 200) {
          stream.on('data', (chunk: Buffer) => bodyChunks.push(chunk));
          stream.on('end', () => resolve({ status, headers: head, body: Buffer.concat(bodyChunks).toString(), stream, send: () => undefined, close: () => undefined, next: () => Promise.reject(new Error('refused')), closed: closed.promise }));
          return;
        }
        stream.on('data', (chunk: Buffer) => {
          const parsed = parseFrames(Buffer.concat([pending, chunk]));
          pending = parsed.rest;
          for (const message of parsed.frames) {
            if (message.opcode === 0x8) {
              closeCode = message.payload.length >= 2 ? message.payload.readUInt16BE(0) : undefined;
              continue;
            }
            const take = waiting.shift();
            if (take) take(message);
            else queue.push(message);
          }
        });
        resolve({
          status,
          headers: head,
          body: '',
          stream,
          send: (payload, opcode) => stream.write(frame(opcode ?? (typeof payload === 'string' ? 1 : 2), Buffer.from(payload))),
          close: (code) => stream.write(frame(0x8, Buffer.from([code >> 8, code & 0xff]))),
          next: () => {
            const queued = queue.shift();
            return queued !== undefined ? Promise.resolve(queued) : withTimeout(new Promise((r) => waiting.push(r)), 10_000, 'no message came back');
          },
          closed: closed.promise,
        });
      });
      stream.on('close', () => {
        if (status === 0) reject(new Error(`stream closed without an answer (rst ${stream.rstCode})`));
      });
    }),
    15_000,
    `extended CONNECT ${path}`,
  );
}
