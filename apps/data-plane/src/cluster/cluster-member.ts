import { randomUUID } from 'node:crypto';
import {
  COMMAND_REPLIES_CHANNEL,
  COMMANDS_CHANNEL,
  EVENTS_CHANNEL,
  PRESENCE_CHANNEL,
  PRESENCE_INTERVAL_MS,
  type CircuitBreakerOpenedEvent,
  type CommandReply,
  type CommandResult,
  type DataPlanePresence,
  type MessageBus,
} from '@gateway/events';
import type { Logger } from '../engine/ports';
import type { BreakerOpenedEvent } from '../policies/circuit-breaker/breaker-events';
import { executeCommand, type RouteOperations } from './command-executor';
import { readCommandMessage } from './command-message';

export interface ClusterMemberDeps {
  bus: MessageBus;
  instanceId: string;
  operations: RouteOperations;
  logger: Logger;
  /** ISO 8601 start of this data plane. */
  startedAt: string;
  /** What changes between announcements: the configuration version served, the listening address. */
  presence(): Pick<DataPlanePresence, 'configVersion' | 'host' | 'port'>;
  /** Default PRESENCE_INTERVAL_MS (the contract); tests shorten it. */
  presenceIntervalMs?: number;
}

/**
 * This data plane as a member of a control plane's cluster (only when it follows one, i.e. has a
 * bus): it answers the control plane's commands (breaker trip/reset, cache purge, status queries)
 * through the same in-process functions a one-process caller uses, announces itself so the control
 * plane knows how many answers to wait for, and publishes `circuit_breaker.opened` events.
 * Bus messages are untrusted: a malformed command is logged and ignored, never applied.
 */
export class ClusterMember {
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private closed = false;

  constructor(private readonly deps: ClusterMemberDeps) {}

  start(): void {
    // Not awaited: with Redis away the SUBSCRIBE waits for it (RedisBus), and serving must not.
    this.deps.bus.subscribe<unknown>(COMMANDS_CHANNEL, this.onCommand).then(
      (unsubscribe) => {
        if (this.closed) unsubscribe();
        else this.unsubscribe = unsubscribe;
      },
      (error: unknown) => this.deps.logger.warn({ channel: COMMANDS_CHANNEL, err: String(error) }, 'cannot subscribe to control plane commands'),
    );
    this.announce();
    this.timer = setInterval(() => this.announce(), this.deps.presenceIntervalMs ?? PRESENCE_INTERVAL_MS);
    this.timer.unref();
  }

  /** The data plane's breaker-opened hook: one event per breaker that opened on this data plane. */
  breakerOpened(event: BreakerOpenedEvent): void {
    if (this.closed) return;
    const message: CircuitBreakerOpenedEvent = {
      id: randomUUID(),
      type: 'circuit_breaker.opened',
      createdAt: event.at,
      data: { breaker: event.breaker, kind: event.kind, routeIds: event.routeIds, reason: event.reason, instanceId: this.deps.instanceId },
    };
    this.publish(EVENTS_CHANNEL, message);
  }

  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    this.unsubscribe?.();
  }

  /** Entry point of every command; `raw` is untrusted. */
  private readonly onCommand = (raw: unknown): void => {
    if (this.closed) return;
    const read = readCommandMessage(raw);
    if (!read.ok) {
      this.deps.logger.warn({ channel: COMMANDS_CHANNEL, reason: read.reason }, 'ignored a malformed command');
      return;
    }
    const { command } = read;
    let result: CommandResult;
    try {
      result = executeCommand(command, this.deps.operations);
    } catch (error) {
      // No reply: the control plane reports this data plane as not answering.
      this.deps.logger.error({ kind: command.kind, routeId: 'routeId' in command ? command.routeId : undefined, err: String(error) }, 'command failed');
      return;
    }
    // Queries change nothing: only actions are worth a line.
    if (command.kind !== 'status-query' && command.kind !== 'logs-query') this.deps.logger.info({ kind: command.kind, routeId: command.routeId, ...('action' in command ? { action: command.action } : {}) }, 'applied a control plane command');
    const reply: CommandReply = { commandId: command.id, instanceId: this.deps.instanceId, at: new Date().toISOString(), result };
    this.publish(COMMAND_REPLIES_CHANNEL, reply);
  };

  private announce(): void {
    const now = new Date().toISOString();
    const presence: DataPlanePresence = { instanceId: this.deps.instanceId, startedAt: this.deps.startedAt, at: now, ...this.deps.presence() };
    this.publish(PRESENCE_CHANNEL, presence);
  }

  /** Messages are hints: a failed publish is logged, never thrown (the RedisBus already logs its own). */
  private publish(channel: string, message: unknown): void {
    this.deps.bus.publish(channel, message).catch((error: unknown) => this.deps.logger.warn({ channel, err: String(error) }, 'publish failed'));
  }
}
