import net from 'node:net';
import type { AddressInfo } from 'node:net';

/** What the upstream does with one request: bytes to write, then how it leaves. */
export interface UpstreamScript {
  readonly label: string;
  /** Written in order, `gapMs` apart (latin1 text, one char per byte). */
  readonly parts: readonly string[];
  readonly gapMs: number;
  /**
   * end: FIN after the parts; reset: RST; hang: keep the connection open, silent; keep: read the
   * next request on the same connection (what the parts left unread stays in the gateway's pool);
   * endless: keep writing `parts[parts.length - 1]` until the gateway goes away.
   */
  readonly finish: 'end' | 'reset' | 'hang' | 'keep' | 'endless';
}

export interface HostileUpstream {
  readonly port: number;
  /** Requests whose last path segment is `id` are answered with `script`. */
  register(id: string, script: UpstreamScript): void;
  close(): Promise<void>;
}

const HEAD_END = '\r\n\r\n';
/** Requests the gateway forwards are small; a longer head is not one of ours. */
const MAX_REQUEST_HEAD = 64 * 1024;

/**
 * A raw TCP server on loopback that answers HTTP requests with scripted bytes, valid or not: it
 * has to be raw, since node:http would refuse to write most of what the fuzz generates.
 */
export async function startHostileUpstream(): Promise<HostileUpstream> {
  const scripts = new Map<string, UpstreamScript>();
  const sockets = new Set<net.Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, fn: () => void): void => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  };

  const play = (socket: net.Socket, script: UpstreamScript, index: number, onKeep: () => void): void => {
    if (socket.destroyed) return;
    if (index < script.parts.length) {
      socket.write(script.parts[index] as string);
      if (script.gapMs > 0) later(script.gapMs, () => play(socket, script, index + 1, onKeep));
      else play(socket, script, index + 1, onKeep);
      return;
    }
    switch (script.finish) {
      case 'end':
        socket.end();
        break;
      case 'reset':
        socket.resetAndDestroy();
        break;
      case 'hang':
        break;
      case 'keep':
        onKeep();
        break;
      case 'endless':
        if (socket.writableNeedDrain) socket.once('drain', () => play(socket, script, index, onKeep));
        else later(Math.max(5, script.gapMs), () => play(socket, script, script.parts.length - 1, onKeep));
        break;
    }
  };

  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let pending = '';
    let busy = false;
    const next = (): void => {
      busy = false;
      const end = pending.indexOf(HEAD_END);
      if (end === -1) return;
      const head = pending.slice(0, end);
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (pending.length < end + HEAD_END.length + length) return;
      pending = pending.slice(end + HEAD_END.length + length);
      const target = head.slice(0, head.indexOf('\r\n')).split(' ')[1] ?? '';
      const id = target.split('?')[0]?.split('/').pop() ?? '';
      const script = scripts.get(id) ?? { label: 'unknown id', parts: ['HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n'], gapMs: 0, finish: 'keep' };
      busy = true;
      play(socket, script, 0, next);
    };
    socket.on('data', (chunk: Buffer) => {
      pending += chunk.toString('latin1');
      if (pending.length > MAX_REQUEST_HEAD) socket.destroy();
      else if (!busy) next();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    register: (id, script) => void scripts.set(id, script),
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
