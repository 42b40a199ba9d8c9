import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import { TokenRevocationService } from '../auth/token-revocation.service';
import { DomainError } from '../common/domain-error';
import { EventStore, toStoredEvent } from './event-store.service';

/** How often an open stream looks for newly stored events (any instance may have stored them). */
const POLL_MS = 1000;
/** Events stored by another instance whose clock is behind still stream: the cursor looks back this far, ids dedupe. */
const CLOCK_SLACK_MS = 5000;
const BATCH = 200;
const REVOCATION_CHECK_MS = 2000;
export const MAX_EVENT_STREAMS = 100;
const MAX_TIMER_MS = 2 ** 31 - 1;
/** A resume sends at most this far back. */
const MAX_REPLAY_MS = 3_600_000;

type StreamEnd = 'token_expired' | 'token_revoked' | 'shutdown';

/**
 * `GET /api/events/stream`: Server-Sent Events, one `event` frame per stored event (`data` is the
 * envelope `{id, type, createdAt, data}`), `id` the time it was stored (epoch ms). Reads the store,
 * so a client on any instance sees the events of every instance. `Last-Event-ID` resumes (up to an
 * hour back). Authentication and ending as the monitoring stream (docs/telemetry.md): the stream
 * ends with `event: end` when its token expires or is revoked, or the control plane stops.
 */
@Injectable()
export class EventStreams implements OnModuleDestroy {
  private readonly logger = new Logger('Events');
  private readonly open = new Set<(reason: StreamEnd) => void>();

  constructor(
    private readonly store: EventStore,
    private readonly revocations: TokenRevocationService,
  ) {}

  onModuleDestroy(): void {
    for (const end of [...this.open]) end('shutdown');
  }

  serve(res: ServerResponse, user: AuthenticatedUser, lastEventId: string | undefined): void {
    if (this.open.size >= MAX_EVENT_STREAMS) throw new DomainError('SERVICE_UNAVAILABLE', `At most ${MAX_EVENT_STREAMS} event streams may be open`);
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    res.write(': events\n\n');
    const now = Date.now();
    let cursor = /^\d{1,15}$/.test(lastEventId ?? '') ? Math.max(Number(lastEventId), now - MAX_REPLAY_MS) : now;
    let sent = new Set<string>();
    const timers: NodeJS.Timeout[] = [];
    let polling = false;
    const end = (reason: StreamEnd): void => {
      if (!this.open.delete(end)) return;
      for (const timer of timers) clearTimeout(timer);
      if (!res.writableEnded) res.end(`event: end\ndata: ${JSON.stringify({ reason })}\n\n`);
    };
    this.open.add(end);
    res.once('close', () => {
      this.open.delete(end);
      for (const timer of timers) clearTimeout(timer);
    });

    const poll = async (): Promise<void> => {
      if (polling || res.writableEnded) return;
      polling = true;
      try {
        const rows = await this.store.storedSince(cursor - CLOCK_SLACK_MS, BATCH);
        for (const row of rows) {
          if (!sent.has(row.id)) res.write(`id: ${row.storedAtMs}\nevent: ${row.type}\ndata: ${JSON.stringify(toStoredEvent(row))}\n\n`);
          cursor = Math.max(cursor, row.storedAtMs);
        }
        // Only the ids still inside the look-back can come again.
        sent = new Set(rows.filter((row) => row.storedAtMs > cursor - CLOCK_SLACK_MS).map((row) => row.id));
      } catch (error) {
        this.logger.warn(`event stream: reading the store failed: ${(error as Error).message}`);
      } finally {
        polling = false;
      }
    };
    void poll();
    timers.push(setInterval(() => void poll(), POLL_MS));

    const armExpiry = (): void => {
      const left = user.expiresAt.getTime() - Date.now();
      if (left <= 0) end('token_expired');
      else timers.push(setTimeout(armExpiry, Math.min(left, MAX_TIMER_MS)));
    };
    armExpiry();
    timers.push(
      setInterval(() => {
        this.revocations.isRevoked(user.jti, user.id).then(
          (revoked) => (revoked ? end('token_revoked') : undefined),
          () => undefined, // the database may blip; the next check or the expiry still ends it
        );
      }, REVOCATION_CHECK_MS),
    );
  }
}
