import type { LogLine, LogLineLevel } from './log-line.types';
import type { BreakerKind, BreakerStatus, HealthCheckStatus, RateLimitUsage } from './resilience-status.types';

/*
 * Per-route operations across data planes (issues 4 and 5): the control plane publishes a command
 * on COMMANDS_CHANNEL, every data plane that follows it applies the command to its own state and
 * answers on COMMAND_REPLIES_CHANNEL; PRESENCE_CHANNEL tells the control plane how many answers to
 * wait for. Messages are untrusted input on both sides: each side validates what it receives.
 */

/** What a status query asks for. */
export type StatusSubject = 'circuit-breaker' | 'health' | 'rate-limit';

/** Commands the control plane sends to every data plane. `id` is unique per command (replies name it). */
export type CommandMessage =
  /**
   * Manual Trip (any -> OPEN) or Reset (any -> CLOSED) of the route's breaker (spec 3.1). A trip
   * with `holdUntil` (ISO 8601, a runbook's CIRCUIT_BREAKER action) stays OPEN with no HALF_OPEN
   * test until then; a reset ends any hold.
   */
  | { kind: 'circuit-breaker'; id: string; routeId: string; action: 'trip' | 'reset'; holdUntil?: string }
  /** Drop the route's response-cache entries. */
  | { kind: 'cache-purge'; id: string; routeId: string }
  /** Read-only: this data plane's status of the route. */
  | { kind: 'status-query'; id: string; routeId: string; subject: StatusSubject }
  /**
   * Read-only, not about a route: this data plane's recent log lines (GET /api/logs when the planes
   * run apart), the newest `limit` of `level` and more severe, after `since` (ISO 8601) when set.
   */
  | { kind: 'logs-query'; id: string; limit: number; level?: LogLineLevel; since?: string };

/** The commands about one route (every kind but logs-query). */
export type RouteCommandMessage = Extract<CommandMessage, { routeId: string }>;

export type CommandKind = CommandMessage['kind'];

/** A command before its id is assigned (Omit distributed over the union, so each keeps its own fields). */
export type CommandRequest = CommandMessage extends infer C ? (C extends CommandMessage ? Omit<C, 'id'> : never) : never;

/** The breaker a route's traffic passes first (its own, else its upstream's), as one data plane sees it. */
export interface RouteBreakerView extends BreakerStatus {
  name: string;
  kind: BreakerKind;
}

/** A data plane's answer to one command; fields a route does not have are null (no breaker, no check, no limit). */
export type CommandResult =
  /** Trip, reset, or a circuit-breaker status query: the breaker after the action. */
  | { subject: 'circuit-breaker'; breaker: RouteBreakerView | null }
  /** Cache purge: entries dropped on this data plane. */
  | { subject: 'cache'; purged: number }
  | { subject: 'health'; check: HealthCheckStatus | null; breaker: RouteBreakerView | null }
  | { subject: 'rate-limit'; usage: RateLimitUsage | null }
  /** A logs query: the newest matching lines of this data plane, and how many matched in all. */
  | { subject: 'logs'; lines: LogLine[]; total: number };

export type ResultSubject = CommandResult['subject'];
export type ResultOf<S extends ResultSubject> = Extract<CommandResult, { subject: S }>;

/** Every data plane answers every valid command once, also when it does not serve the route. */
export interface CommandReply<R extends CommandResult = CommandResult> {
  commandId: string;
  instanceId: string;
  /** ISO 8601. */
  at: string;
  result: R;
}

/** Published by every data plane that has a bus, every PRESENCE_INTERVAL_MS. */
export interface DataPlanePresence {
  /** Unique per data plane process (stable for its lifetime). */
  instanceId: string;
  /** The control plane's configuration version the data plane serves; null before its first snapshot. */
  configVersion: number | null;
  /** ISO 8601. */
  startedAt: string;
  /** ISO 8601 of this announcement. */
  at: string;
  /** The proxy's listening address, for operators. */
  host?: string;
  port?: number;
}

export const COMMANDS_CHANNEL = 'gateway:commands';
export const COMMAND_REPLIES_CHANNEL = 'gateway:command-replies';
export const PRESENCE_CHANNEL = 'gateway:data-planes';

/**
 * Busiest keys a data plane lists in a rate-limit answer: more than the 10 the API shows, so the
 * merged top 10 is exact unless a key is outside this many on every data plane.
 */
export const USAGE_REPLY_KEYS = 100;

/** How often a data plane announces itself; a control plane forgets one after 3 missed intervals. */
export const PRESENCE_INTERVAL_MS = 2000;
