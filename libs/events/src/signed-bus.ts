import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { BusDropCounter, stderrBusLogger, type BusDropLogger, type BusDropReason } from './bus-drop-counter';
import { deriveBusSigningKey, type BusSigningKey } from './bus-signing-key';
import type { MessageBus } from './message-bus';
import { ReplayGuard } from './replay-guard';

/**
 * What travels on the bus in place of a message. `body` is the message's JSON text, so the bytes
 * signed are the bytes received (no canonical form of arbitrary JSON to agree on) and both buses,
 * in process and Redis, hand listeners the same JSON round-trip.
 */
export interface SignedEnvelope {
  v: 1;
  /** Which key signed (BusSigningKey.kid): the current one or, during a rotation, the previous one. */
  kid: string;
  /** Publish time, ms since the epoch. */
  ts: number;
  /** 128 random bits in hex: a copy seen again within the window is a replay. */
  id: string;
  /** The channel it was published on: signed, so a message cannot be replayed onto another channel. */
  channel: string;
  body: string;
  /** HMAC-SHA256 over signedText(...), hex. */
  sig: string;
}

export interface SignedBusOptions {
  /** CLUSTER_TOKEN: the signing key is derived from it (deriveBusSigningKey). */
  clusterToken: string;
  /** CLUSTER_TOKEN_PREVIOUS: still accepted for verification while the cluster rotates to the new token. */
  previousClusterToken?: string;
  /** Shared with the transport when it also drops (RedisBus `onUndecodable`); default a new one. */
  drops?: BusDropCounter;
  /** Listener failures; default stderr JSON lines. */
  logger?: BusDropLogger;
  /** |now - ts| beyond this is stale. Default 60 000 ms. */
  windowMs?: number;
  /** Ids remembered against replay at most (ReplayGuard). Default 100 000. */
  maxRememberedIds?: number;
  now?: () => number;
}

type Listener = (message: unknown) => void;

const HEX16 = /^[0-9a-f]{16}$/;
const HEX32 = /^[0-9a-f]{32}$/;
const HEX64 = /^[0-9a-f]{64}$/;
const MAX_CHANNEL_LENGTH = 256;

/** The exact text the HMAC covers: every field but the signature, unambiguous (a JSON array). */
function signedText(e: Omit<SignedEnvelope, 'sig'>): string {
  return JSON.stringify(['gateway-bus', e.v, e.kid, e.ts, e.id, e.channel, e.body]);
}

function sign(key: Buffer, text: string): Buffer {
  return createHmac('sha256', key).update(text, 'utf8').digest();
}

/** A well-formed envelope, or why not ('unsigned': no signature at all; 'malformed': one, but not ours). */
function parseEnvelope(raw: unknown): SignedEnvelope | 'unsigned' | 'malformed' {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw) || !('sig' in raw)) return 'unsigned';
  const e = raw as Record<string, unknown>;
  const wellFormed =
    e['v'] === 1 &&
    typeof e['kid'] === 'string' &&
    HEX16.test(e['kid']) &&
    Number.isSafeInteger(e['ts']) &&
    typeof e['id'] === 'string' &&
    HEX32.test(e['id']) &&
    typeof e['channel'] === 'string' &&
    e['channel'].length <= MAX_CHANNEL_LENGTH &&
    typeof e['body'] === 'string' &&
    typeof e['sig'] === 'string' &&
    HEX64.test(e['sig']);
  return wellFormed ? (e as unknown as SignedEnvelope) : 'malformed';
}

/**
 * Authenticates every message of another bus (issue 11: whoever can publish to Redis must not be
 * able to route traffic). Publishing signs an envelope with a key derived from CLUSTER_TOKEN;
 * receiving verifies it (constant time), refuses it when stale or already seen, and only then
 * hands the body to the listeners. Whatever arrives, nothing throws: a drop is counted by reason
 * (`dropCounts()`, gateway_bus_messages_dropped_total) and summarized in the log once per interval.
 */
export class SignedBus implements MessageBus {
  readonly drops: BusDropCounter;
  readonly onReconnect?: (listener: () => void) => () => void;
  readonly ping?: () => Promise<boolean>;
  private readonly signing: BusSigningKey;
  private readonly verifying = new Map<string, Buffer>();
  private readonly replays: ReplayGuard;
  private readonly windowMs: number;
  private readonly now: () => number;
  private readonly logger: BusDropLogger;
  private readonly channels = new Map<string, { listeners: Set<Listener>; subscribed: Promise<() => void> }>();

  constructor(
    private readonly inner: MessageBus,
    options: SignedBusOptions,
  ) {
    this.signing = deriveBusSigningKey(options.clusterToken);
    this.verifying.set(this.signing.kid, this.signing.key);
    if (options.previousClusterToken !== undefined) {
      const previous = deriveBusSigningKey(options.previousClusterToken);
      if (!this.verifying.has(previous.kid)) this.verifying.set(previous.kid, previous.key);
    }
    this.drops = options.drops ?? new BusDropCounter({ ...(options.logger === undefined ? {} : { logger: options.logger }) });
    this.logger = options.logger ?? stderrBusLogger;
    this.windowMs = options.windowMs ?? 60_000;
    this.now = options.now ?? Date.now;
    this.replays = new ReplayGuard(this.windowMs, options.maxRememberedIds ?? 100_000);
    if (inner.onReconnect !== undefined) this.onReconnect = (listener) => inner.onReconnect!(listener);
    if (inner.ping !== undefined) this.ping = () => inner.ping!();
  }

  async publish<T>(channel: string, message: T): Promise<void> {
    const body = JSON.stringify(message);
    if (body === undefined) throw new TypeError(`bus message on ${channel} is not a JSON value`);
    const unsigned = { v: 1 as const, kid: this.signing.kid, ts: this.now(), id: randomBytes(16).toString('hex'), channel, body };
    const envelope: SignedEnvelope = { ...unsigned, sig: sign(this.signing.key, signedText(unsigned)).toString('hex') };
    await this.inner.publish(channel, envelope);
  }

  async subscribe<T>(channel: string, listener: (message: T) => void): Promise<() => void> {
    // One subscription per channel, verified once, fanned out here: with a listener per inner
    // subscription the second would see every message as a replay of the first's.
    let entry = this.channels.get(channel);
    if (entry === undefined) {
      const created = { listeners: new Set<Listener>(), subscribed: this.inner.subscribe<unknown>(channel, (raw) => this.receive(channel, created.listeners, raw)) };
      entry = created;
      this.channels.set(channel, entry);
    }
    const own = entry;
    const wrapped = listener as Listener;
    own.listeners.add(wrapped);
    try {
      await own.subscribed;
    } catch (error) {
      own.listeners.delete(wrapped);
      if (this.channels.get(channel) === own) this.channels.delete(channel);
      throw error;
    }
    return () => {
      own.listeners.delete(wrapped);
      if (own.listeners.size > 0 || this.channels.get(channel) !== own) return;
      this.channels.delete(channel);
      void own.subscribed.then((remove) => remove(), () => undefined);
    };
  }

  /** Messages dropped since start, by reason. */
  dropCounts(): Readonly<Record<BusDropReason, number>> {
    return this.drops.counts();
  }

  async close(): Promise<void> {
    this.channels.clear();
    this.drops.close();
    await this.inner.close();
  }

  private receive(channel: string, listeners: ReadonlySet<Listener>, raw: unknown): void {
    const opened = this.open(channel, raw);
    if (typeof opened === 'string') {
      this.drops.record(opened, channel);
      return;
    }
    for (const listener of [...listeners]) {
      try {
        listener(opened.message);
      } catch (error) {
        this.logger.warn('bus listener failed', { channel, error: error instanceof Error ? error.message : String(error) });
      }
    }
  }

  /** The verified message, or the reason it is dropped. The order makes the reason the most telling one. */
  private open(channel: string, raw: unknown): { message: unknown } | BusDropReason {
    const envelope = parseEnvelope(raw);
    if (typeof envelope === 'string') return envelope;
    const key = this.verifying.get(envelope.kid);
    if (key === undefined) return 'unknown_key';
    const expected = sign(key, signedText(envelope));
    if (!timingSafeEqual(expected, Buffer.from(envelope.sig, 'hex'))) return 'forged';
    if (envelope.channel !== channel) return 'wrong_channel';
    const now = this.now();
    if (Math.abs(now - envelope.ts) > this.windowMs) return 'stale';
    if (!this.replays.admit(envelope.id, envelope.ts, now)) return 'replayed';
    try {
      return { message: JSON.parse(envelope.body) as unknown };
    } catch {
      return 'malformed';
    }
  }
}
