import { Inject, Injectable } from '@nestjs/common';
import type { LogLine, LogQuery, LogRingBuffer } from '@gateway/logging';
import { CommandDispatcher } from '../route-operations/command-dispatcher.service';
import { DataPlaneDirectory } from '../route-operations/data-plane-directory.service';
import { LOG_BUFFER } from './logs.tokens';

export interface RecentLogs {
  /** The newest `limit` matching lines of every plane, oldest first. */
  lines: LogLine[];
  /** How many lines matched in all (this process and every data plane that answered). */
  total: number;
  /** Live data planes that did not answer in time (their lines are missing). */
  missing: string[];
}

/**
 * The recent log lines of the gateway: this process's buffer (in one process both planes write
 * to it), merged with the lines of the data planes that run apart, asked for over the bus with a
 * logs-query command. Only data planes known to be live are asked, so a control plane without
 * data planes answers at once instead of waiting out the reply bound.
 */
@Injectable()
export class RecentLogsService {
  constructor(
    @Inject(LOG_BUFFER) private readonly buffer: LogRingBuffer,
    private readonly commands: CommandDispatcher,
    private readonly directory: DataPlaneDirectory,
  ) {}

  async query(query: LogQuery): Promise<RecentLogs> {
    const local = this.buffer.query(query);
    if (this.directory.live().length === 0) return { ...local, missing: [] };
    const asked = await this.commands.dispatch({ kind: 'logs-query', limit: query.limit, ...(query.level === undefined ? {} : { level: query.level }), ...(query.since === undefined ? {} : { since: query.since.toISOString() }) }, 'logs');
    const remote = asked.replies.flatMap((reply) => reply.result.lines.map((line) => this.fromDataPlane(line, reply.instanceId)));
    const lines = [...local.lines, ...remote].sort((a, b) => Date.parse(a.time) - Date.parse(b.time));
    const total = asked.replies.reduce((sum, reply) => sum + reply.result.total, local.total);
    return { lines: lines.slice(Math.max(0, lines.length - query.limit)), total, missing: asked.missing };
  }

  /** Another process's line: redacted again with this control plane's secrets, and named by its data plane. */
  private fromDataPlane(line: LogLine, instance: string): LogLine {
    const secrets = this.buffer.secrets;
    return { ...line, message: secrets.redact(line.message), fields: secrets.redactValue(line.fields) as Record<string, unknown>, instance };
  }
}
