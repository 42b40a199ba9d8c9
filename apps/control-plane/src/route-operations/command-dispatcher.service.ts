import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { COMMAND_REPLIES_CHANNEL, COMMANDS_CHANNEL, type CommandMessage, type CommandReply, type CommandRequest, type MessageBus, type ResultOf, type ResultSubject } from '@gateway/events';
import { MESSAGE_BUS } from '../config/config.tokens';
import { subscribeInBackground, type BackgroundSubscription } from '../common/background-subscription';
import { DataPlaneDirectory } from './data-plane-directory.service';
import { readReply, replyCommandId } from './operation-messages';

/** How long a command waits for the live data planes' replies (an API call is never held longer). */
export const REPLY_WAIT_MS = 1000;

/** The replies a command collected, one per data plane, and the live data planes that did not answer in time. */
export interface Dispatched<S extends ResultSubject> {
  replies: Array<CommandReply<ResultOf<S>>>;
  /** Instance ids of live data planes (presence) that did not answer within REPLY_WAIT_MS. */
  missing: string[];
}

interface Pending {
  subject: ResultSubject;
  expected: ReadonlySet<string>;
  replies: Map<string, CommandReply>;
  finish(): void;
}

/**
 * Publishes a command to every data plane and collects their replies: until every live data plane
 * (DataPlaneDirectory) answered, or REPLY_WAIT_MS passed. With no live data plane known it waits
 * the whole bound, so data planes this control plane has not heard from yet (it just started) can
 * still answer. Replies are untrusted: a reply of the wrong shape, for another command, or a second
 * one from the same data plane is ignored.
 */
@Injectable()
export class CommandDispatcher implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Commands');
  private readonly pending = new Map<string, Pending>();
  private subscription: BackgroundSubscription | undefined;

  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    private readonly directory: DataPlaneDirectory,
  ) {}

  onModuleInit(): void {
    // Not awaited: with Redis away the SUBSCRIBE waits for it, and the boot must not.
    this.subscription = subscribeInBackground(this.bus, COMMAND_REPLIES_CHANNEL, (raw) => this.onReply(raw), this.logger);
  }

  onModuleDestroy(): void {
    this.subscription?.close();
    for (const pending of [...this.pending.values()]) pending.finish();
  }

  dispatch<S extends ResultSubject>(request: CommandRequest, subject: S): Promise<Dispatched<S>> {
    const command = { ...request, id: randomUUID() } as CommandMessage;
    const expected = new Set(this.directory.live().map((p) => p.instanceId));
    return new Promise<Dispatched<S>>((resolve) => {
      const replies = new Map<string, CommandReply>();
      const finish = (): void => {
        if (!this.pending.delete(command.id)) return;
        clearTimeout(timer);
        const answered = [...replies.values()].sort((a, b) => a.instanceId.localeCompare(b.instanceId)) as Array<CommandReply<ResultOf<S>>>;
        resolve({ replies: answered, missing: [...expected].filter((id) => !replies.has(id)).sort() });
      };
      // Not unref'd: a caller awaits the answer (close() finishes pending commands at once).
      const timer = setTimeout(finish, REPLY_WAIT_MS);
      this.pending.set(command.id, { subject, expected, replies, finish });
      // A failed publish (Redis away) is logged by the bus; the command then times out with every data plane missing.
      this.bus.publish(COMMANDS_CHANNEL, command).catch((error: unknown) => this.logger.warn(`publishing a ${command.kind} command failed: ${(error as Error).message}`));
    });
  }

  private onReply(raw: unknown): void {
    const commandId = replyCommandId(raw);
    const pending = commandId === undefined ? undefined : this.pending.get(commandId);
    // Replies to another control plane's commands arrive here too: not ours, not an error.
    if (pending === undefined) return;
    const reply = readReply(raw, pending.subject);
    if (reply === undefined) {
      this.logger.warn(`ignored a malformed reply to command ${commandId}`);
      return;
    }
    if (pending.replies.has(reply.instanceId)) return;
    pending.replies.set(reply.instanceId, reply);
    if (pending.expected.size > 0 && [...pending.expected].every((id) => pending.replies.has(id))) pending.finish();
  }
}
