import net from 'node:net';
import type { MessageBus } from '@gateway/events';

/*
 * TEST-ONLY Redis pub/sub MessageBus over raw RESP (node:net), so test/cluster can exercise the
 * data plane's follower against a real Redis before the product's RedisBus (ioredis, in
 * libs/events/src/redis-bus.ts, another stream's work) is merged. Not for production: no TLS,
 * no AUTH, minimal error handling.
 */

type Reply = string | number | null | Error | Reply[];

/** Incremental RESP2 parser: feed bytes, take complete replies. */
class RespParser {
  private buffer: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): Reply[] {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const out: Reply[] = [];
    for (;;) {
      const parsed = this.parse(0);
      if (parsed === undefined) break;
      out.push(parsed.value);
      this.buffer = this.buffer.subarray(parsed.end);
    }
    return out;
  }

  private parse(at: number): { value: Reply; end: number } | undefined {
    const lineEnd = this.buffer.indexOf('\r\n', at);
    if (lineEnd === -1) return undefined;
    const type = String.fromCharCode(this.buffer[at] as number);
    const line = this.buffer.toString('utf8', at + 1, lineEnd);
    const next = lineEnd + 2;
    switch (type) {
      case '+':
        return { value: line, end: next };
      case '-':
        return { value: new Error(line), end: next };
      case ':':
        return { value: Number(line), end: next };
      case '$': {
        const length = Number(line);
        if (length < 0) return { value: null, end: next };
        if (this.buffer.length < next + length + 2) return undefined;
        return { value: this.buffer.toString('utf8', next, next + length), end: next + length + 2 };
      }
      case '*': {
        const count = Number(line);
        if (count < 0) return { value: null, end: next };
        const items: Reply[] = [];
        let cursor = next;
        for (let i = 0; i < count; i += 1) {
          const item = this.parse(cursor);
          if (item === undefined) return undefined;
          items.push(item.value);
          cursor = item.end;
        }
        return { value: items, end: cursor };
      }
      default:
        throw new Error(`unexpected RESP type ${type}`);
    }
  }
}

function encode(args: string[]): string {
  return `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;
}

/** One connection that reconnects by itself; `onReady` runs after every (re)connect. */
class RespConnection {
  private socket: net.Socket | undefined;
  private parser = new RespParser();
  private pending: Array<(reply: Reply) => void> = [];
  private closed = false;
  private connectedOnce = false;
  onPush: (reply: Reply[]) => void = () => undefined;
  onReady: (reconnected: boolean) => Promise<void> = async () => undefined;

  constructor(private readonly port: number, private readonly host: string) {}

  connect(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const socket = net.connect(this.port, this.host);
      this.socket = socket;
      this.parser = new RespParser();
      socket.on('data', (chunk: Buffer) => {
        for (const reply of this.parser.push(chunk)) {
          if (Array.isArray(reply) && reply[0] === 'message') {
            this.onPush(reply);
            continue;
          }
          const waiter = this.pending.shift();
          if (waiter !== undefined) waiter(reply);
          else if (Array.isArray(reply)) this.onPush(reply);
        }
      });
      socket.once('connect', () => {
        const reconnected = this.connectedOnce;
        this.connectedOnce = true;
        this.onReady(reconnected).then(resolve, reject);
      });
      socket.on('error', (error) => {
        if (!this.connectedOnce) reject(error);
      });
      socket.on('close', () => {
        const waiters = this.pending;
        this.pending = [];
        for (const w of waiters) w(new Error('connection closed'));
        if (!this.closed && this.connectedOnce) setTimeout(() => this.reconnect(), 50).unref();
      });
    });
  }

  private reconnect(): void {
    if (this.closed) return;
    this.connect().catch(() => setTimeout(() => this.reconnect(), 100).unref());
  }

  /** A command answered in order (not for pushed pub/sub messages). */
  command(args: string[], expectsReply = true): Promise<Reply> {
    return new Promise<Reply>((resolve, reject) => {
      if (this.socket === undefined || this.socket.destroyed) {
        reject(new Error('not connected'));
        return;
      }
      if (expectsReply) this.pending.push((reply) => (reply instanceof Error ? reject(reply) : resolve(reply)));
      this.socket.write(encode(args));
      if (!expectsReply) resolve(null);
    });
  }

  close(): void {
    this.closed = true;
    this.socket?.destroy();
  }
}

export class RedisTestBus implements MessageBus {
  private readonly publisher: RespConnection;
  private readonly subscriber: RespConnection;
  private readonly listeners = new Map<string, Set<(message: unknown) => void>>();
  private readonly reconnectListeners = new Set<() => void>();
  /** CLIENT ID of the subscriber connection (for CLIENT KILL ID in tests). */
  subscriberId = -1;
  reconnects = 0;

  private constructor(
    port: number,
    host: string,
    private readonly prefix: string,
  ) {
    this.publisher = new RespConnection(port, host);
    this.subscriber = new RespConnection(port, host);
    this.subscriber.onPush = (reply) => {
      if (reply[0] !== 'message') return;
      const channel = String(reply[1]).slice(this.prefix.length);
      let message: unknown;
      try {
        message = JSON.parse(String(reply[2]));
      } catch {
        return;
      }
      for (const listener of this.listeners.get(channel) ?? []) listener(message);
    };
    this.subscriber.onReady = async (reconnected) => {
      // CLIENT ID before SUBSCRIBE: once subscribed, a RESP2 connection accepts only (P)SUBSCRIBE commands.
      this.subscriberId = (await this.subscriber.command(['CLIENT', 'ID'])) as number;
      for (const channel of this.listeners.keys()) await this.subscriber.command(['SUBSCRIBE', this.prefix + channel]);
      if (reconnected) {
        this.reconnects += 1;
        for (const listener of this.reconnectListeners) listener();
      }
    };
  }

  static async connect(redisUrl: string, prefix: string): Promise<RedisTestBus> {
    const url = new URL(redisUrl);
    const bus = new RedisTestBus(Number(url.port || 6379), url.hostname, prefix);
    await Promise.all([bus.publisher.connect(), bus.subscriber.connect()]);
    return bus;
  }

  async publish<T>(channel: string, message: T): Promise<void> {
    await this.publisher.command(['PUBLISH', this.prefix + channel, JSON.stringify(message)]);
  }

  async subscribe<T>(channel: string, listener: (message: T) => void): Promise<() => void> {
    let set = this.listeners.get(channel);
    if (set === undefined) {
      set = new Set();
      this.listeners.set(channel, set);
      await this.subscriber.command(['SUBSCRIBE', this.prefix + channel]);
    }
    const wrapped = listener as (message: unknown) => void;
    set.add(wrapped);
    return () => set.delete(wrapped);
  }

  onReconnect(listener: () => void): () => void {
    this.reconnectListeners.add(listener);
    return () => this.reconnectListeners.delete(listener);
  }

  /** Kills this bus's subscriber connection from the server side (what a Redis restart does to it). */
  async killSubscriberConnection(): Promise<void> {
    await this.publisher.command(['CLIENT', 'KILL', 'ID', String(this.subscriberId)]);
  }

  async close(): Promise<void> {
    this.publisher.close();
    this.subscriber.close();
  }
}
