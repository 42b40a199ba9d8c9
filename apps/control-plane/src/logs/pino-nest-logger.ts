import type { LoggerService } from '@nestjs/common';
import type { GatewayPino } from '@gateway/logging/gateway-pino';

type PinoLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/** Nest's start-up chatter (one line per module, controller and route): debug, not info. */
const BOOTSTRAP_CONTEXTS = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication']);

/** What Nest's ConsoleLogger also treats as a stack trace when it is the first parameter of error(). */
const STACK = /^(.)+\n\s+at .+:\d+:\d+/;

/**
 * NestJS's LoggerService over the gateway's pino logger, so the control plane writes the same JSON
 * lines as the data plane (`plane: "control"`, the Nest context as `component`). An object message
 * is logged as fields (its `msg` is the message), as nestjs-pino does: `logger.log({ msg, correlationId })`.
 */
export class PinoNestLogger implements LoggerService {
  private readonly components = new Map<string, GatewayPino>();

  constructor(private readonly pino: GatewayPino) {}

  /**
   * The level lines are produced at, changed while running (settings). Children made per context
   * keep the level they were made with, so each is updated too.
   */
  setLevel(level: PinoLevel): void {
    this.pino.level = level;
    for (const child of this.components.values()) child.level = level;
  }

  log(message: unknown, ...params: unknown[]): void {
    const context = contextOf(params);
    this.write(context !== undefined && BOOTSTRAP_CONTEXTS.has(context) ? 'debug' : 'info', message, params, context);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params, contextOf(params));
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params, contextOf(params));
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params, contextOf(params));
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params, contextOf(params));
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params, contextOf(params));
  }

  private write(level: PinoLevel, message: unknown, params: unknown[], context: string | undefined): void {
    const logger = this.component(context);
    if (!logger.isLevelEnabled(level)) return;
    // Nest pads error() with an undefined stack before the context.
    const rest = (context === undefined ? params : params.slice(0, -1)).filter((param) => param !== undefined);
    const fields: Record<string, unknown> = {};
    const stack = (level === 'error' || level === 'fatal') && typeof rest[0] === 'string' && STACK.test(rest[0]) ? rest.shift() : undefined;
    if (stack !== undefined) fields['stack'] = stack;
    if (rest.length > 0) fields['args'] = rest;
    if (message instanceof Error) {
      logger[level]({ ...fields, err: message }, message.message);
    } else if (message !== null && typeof message === 'object') {
      const { msg, message: text, ...own } = message as Record<string, unknown>;
      logger[level]({ ...fields, ...own }, typeof msg === 'string' ? msg : typeof text === 'string' ? text : '');
    } else {
      logger[level](fields, String(message));
    }
  }

  private component(context: string | undefined): GatewayPino {
    if (context === undefined) return this.pino;
    let child = this.components.get(context);
    if (child === undefined) {
      child = this.pino.child({ component: context });
      this.components.set(context, child);
    }
    return child;
  }
}

/** Nest passes the context as the last parameter (a string) when there is one. */
function contextOf(params: unknown[]): string | undefined {
  const last = params.at(-1);
  return typeof last === 'string' ? last : undefined;
}
