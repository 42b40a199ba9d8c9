import Redis, { type RedisOptions } from 'ioredis';
import type { MessageBus } from './message-bus';
import { redisConnectionOptions } from './redis-connection';

export interface RedisBusLogger {
  warn(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
}

export interface RedisBusOptions {
  /** Prepended to every channel name (tests use a unique one per run). */
  channelPrefix?: string;
  /** ms to establish a connection before the attempt counts as failed. Default 2000. */
  connectTimeoutMs?: number;
  /** ms a publish or ping may take. Default 1000. */
  commandTimeoutMs?: number;
  /** Longest wait between reconnect attempts, ms. Default 500 (convergence within 2 s of Redis returning). */
  maxReconnectDelayMs?: number;
  /** Suffix of the connections' CLIENT SETNAME (`gateway-bus-pub-<suffix>`); default the pid. */
  connectionName?: string;
  /** Where connection changes and dropped messages are reported (default: stderr JSON lines). */
  logger?: RedisBusLogger;
  /**
   * Called, instead of a log line, for each message that is not JSON or is over `maxMessageLength`
   * (a SignedBus counter records it: a flood of garbage must not become a flood of log lines).
   */
  onUndecodable?: (channel: string, reason: 'malformed' | 'too_large') => void;
  /** REDIS_TLS_CA_FILE's PEM, trusted for a rediss:// URL (redisConnectionOptions). */
  tlsCa?: string;
  /** Longer messages (in characters) are dropped unparsed. Default 4 Mi (a route upsert is a few Ki). */
  maxMessageLength?: number;
}

const stderrLogger: RedisBusLogger = {
  warn: (message, fields) => process.stderr.write(`${JSON.stringify({ level: 'warn', msg: message, component: 'redis-bus', ...fields })}\n`),
  info: (message, fields) => process.stderr.write(`${JSON.stringify({ level: 'info', msg: message, component: 'redis-bus', ...fields })}\n`),
};

type Listener = (message: unknown) => void;

/**
 * Redis pub/sub (ioredis) with separate publisher and subscriber connections (a subscribed
 * connection can do nothing else). Messages are JSON and are hints (contracts): a publish while
 * Redis is away fails fast and is logged, never thrown, and never crashes the process; a
 * subscriber learns through `onReconnect` that it may have missed some and resynchronises.
 */
export class RedisBus implements MessageBus {
  private readonly publisher: Redis;
  private readonly subscriber: Redis;
  private readonly prefix: string;
  private readonly logger: RedisBusLogger;
  private readonly commandTimeoutMs: number;
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly reconnectListeners = new Set<() => void>();
  /** The subscriber lost (or never had) its connection since it was last ready. */
  private subscriberInterrupted = false;
  /** Waiters for the next time every channel has been subscribed on a ready connection. */
  private subscribedWaiters: Array<() => void> = [];
  private publisherDown = false;
  private closed = false;
  private readonly maxMessageLength: number;
  private readonly undecodable: (channel: string, reason: 'malformed' | 'too_large') => void;

  constructor(redisUrl: string, options: RedisBusOptions = {}) {
    this.prefix = options.channelPrefix ?? '';
    this.logger = options.logger ?? stderrLogger;
    this.commandTimeoutMs = options.commandTimeoutMs ?? 1000;
    this.maxMessageLength = options.maxMessageLength ?? 4 * 1024 * 1024;
    this.undecodable =
      options.onUndecodable ?? ((channel, reason) => this.logger.warn(reason === 'too_large' ? 'dropped a message over the size bound' : 'dropped a message that is not JSON', { channel }));
    const maxDelay = options.maxReconnectDelayMs ?? 500;
    const common: RedisOptions = {
      ...redisConnectionOptions(redisUrl, options.tlsCa),
      connectTimeout: options.connectTimeoutMs ?? 2000,
      retryStrategy: (attempt) => Math.min(50 * 2 ** Math.min(attempt, 10), maxDelay),
      // Stay connected forever: never give up reconnecting (READONLY etc. are not expected here).
      reconnectOnError: () => false,
    };
    this.publisher = new Redis(redisUrl, {
      ...common,
      connectionName: `gateway-bus-pub-${options.connectionName ?? process.pid}`,
      // A publish while disconnected fails at once instead of queueing stale hints.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: this.commandTimeoutMs,
    });
    this.subscriber = new Redis(redisUrl, {
      ...common,
      connectionName: `gateway-bus-sub-${options.connectionName ?? process.pid}`,
      enableOfflineQueue: true,
      maxRetriesPerRequest: null,
      // The bus subscribes its channels itself on every 'ready' (onSubscriberReady). ioredis writes
      // a SUBSCRIBE issued during its handshake at once (SUBSCRIBE is a `loading` command), its
      // ready check (INFO) then fails in subscriber mode, the connection is recycled, and that
      // channel is silently lost: SUBSCRIBE is therefore only sent on a ready connection.
      autoResubscribe: false,
    });

    this.publisher.on('error', (error: Error) => {
      if (!this.publisherDown) this.logger.warn('redis publisher connection failed', { error: error.message });
      this.publisherDown = true;
    });
    this.publisher.on('ready', () => {
      if (this.publisherDown) this.logger.info('redis publisher connection restored');
      this.publisherDown = false;
    });
    this.subscriber.on('error', (error: Error) => {
      if (!this.subscriberInterrupted) this.logger.warn('redis subscriber connection failed', { error: error.message });
      this.subscriberInterrupted = true;
    });
    this.subscriber.on('close', () => {
      if (!this.closed) this.subscriberInterrupted = true;
    });
    this.subscriber.on('ready', () => void this.onSubscriberReady());
    this.subscriber.on('message', (channel: string, text: string) => this.dispatch(channel, text));
  }

  async publish<T>(channel: string, message: T): Promise<void> {
    if (this.closed) return;
    try {
      await this.publisher.publish(this.prefix + channel, JSON.stringify(message));
    } catch (error) {
      // Messages are hints: the subscriber's heartbeat/gap detection recovers what this loses.
      this.logger.warn('redis publish failed; message dropped', { channel, error: (error as Error).message });
    }
  }

  async subscribe<T>(channel: string, listener: (message: T) => void): Promise<() => void> {
    const wrapped = listener as Listener;
    let set = this.listeners.get(channel);
    if (set === undefined) {
      set = new Set();
      this.listeners.set(channel, set);
      // Bounded: with Redis away the channel is subscribed once the connection is ready (then onReconnect fires).
      const subscribed = this.subscriber.status === 'ready' ? this.subscriber.subscribe(this.prefix + channel) : this.nextSubscribed();
      await this.bounded(subscribed, `subscribe ${channel}`);
    }
    set.add(wrapped);
    return () => {
      const current = this.listeners.get(channel);
      if (current === undefined) return;
      current.delete(wrapped);
      if (current.size === 0) {
        this.listeners.delete(channel);
        // Not ready: nothing to undo, the next 'ready' subscribes only the channels still listened to.
        if (!this.closed && this.subscriber.status === 'ready') void this.subscriber.unsubscribe(this.prefix + channel).catch(() => undefined);
      }
    };
  }

  onReconnect(listener: () => void): () => void {
    this.reconnectListeners.add(listener);
    return () => this.reconnectListeners.delete(listener);
  }

  /** True when Redis answers a PING within the command timeout (readiness checks). */
  async ping(): Promise<boolean> {
    try {
      return (await this.publisher.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    this.reconnectListeners.clear();
    this.settleSubscribedWaiters();
    this.subscriber.disconnect();
    this.publisher.disconnect();
  }

  private async onSubscriberReady(): Promise<void> {
    const channels = [...this.listeners.keys()].map((channel) => this.prefix + channel);
    if (channels.length > 0) await this.bounded(this.subscriber.subscribe(...channels), 'subscribe after connecting');
    this.settleSubscribedWaiters();
    if (!this.subscriberInterrupted || this.closed) return;
    this.subscriberInterrupted = false;
    // A PING on the same connection is answered after the SUBSCRIBEs, so listeners run only once
    // the subscriptions are active again.
    await this.bounded(this.subscriber.ping(), 'ping after reconnect');
    if (this.closed) return;
    this.logger.info('redis subscriber connection restored');
    for (const listener of [...this.reconnectListeners]) {
      try {
        listener();
      } catch (error) {
        this.logger.warn('reconnect listener failed', { error: (error as Error).message });
      }
    }
  }

  /** Resolves once the channels have been subscribed on the next ready connection. */
  private nextSubscribed(): Promise<void> {
    return new Promise((resolve) => this.subscribedWaiters.push(resolve));
  }

  private settleSubscribedWaiters(): void {
    const waiters = this.subscribedWaiters;
    this.subscribedWaiters = [];
    for (const resolve of waiters) resolve();
  }

  private dispatch(prefixedChannel: string, text: string): void {
    if (!prefixedChannel.startsWith(this.prefix)) return;
    const channel = prefixedChannel.slice(this.prefix.length);
    const listeners = this.listeners.get(channel);
    if (listeners === undefined || listeners.size === 0) return;
    if (text.length > this.maxMessageLength) {
      this.undecodable(channel, 'too_large');
      return;
    }
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      this.undecodable(channel, 'malformed');
      return;
    }
    for (const listener of [...listeners]) {
      try {
        listener(message);
      } catch (error) {
        this.logger.warn('message listener failed', { channel: prefixedChannel, error: (error as Error).message });
      }
    }
  }

  private async bounded(operation: Promise<unknown>, what: string): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.commandTimeoutMs * 2);
      timer.unref();
    });
    try {
      const outcome = await Promise.race([operation.then(() => 'done' as const), timeout]);
      if (outcome === 'timeout') this.logger.warn(`redis ${what} is waiting for the connection`);
    } catch (error) {
      this.logger.warn(`redis ${what} failed`, { error: (error as Error).message });
    } finally {
      clearTimeout(timer);
    }
    // A late rejection of `operation` must not become an unhandled rejection.
    operation.catch(() => undefined);
  }
}
