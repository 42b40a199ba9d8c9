import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import type { ClusterSecond } from '@gateway/events';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import { TokenRevocationService } from '../auth/token-revocation.service';
import { DomainError } from '../common/domain-error';
import { TelemetryIngest } from './telemetry-ingest.service';

const SECOND_MS = 1000;
/** How often an open stream looks for newly settled seconds. */
const SEND_CHECK_MS = 200;
/** A resume replays at most the 1-second series' reach. */
const MAX_REPLAY_SECONDS = 900;
/** How often an open stream checks that its token was not revoked (logout, deleted user). */
const REVOCATION_CHECK_MS = 2000;
/** Open streams per control-plane instance: each costs a frame a second. */
export const MAX_OPEN_STREAMS = 100;
/** How long after a second ends its frame is sent: the data planes' windows cross the bus meanwhile. */
const FRAME_DELAY_MS = 250;
/** setTimeout's longest delay; a later expiry is re-armed. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export type StreamEnd = 'token_expired' | 'token_revoked' | 'shutdown';

/**
 * `GET /api/monitoring/stream`: Server-Sent Events, one frame a second, each a second of the cluster
 * once every live data plane has reported it (or it is sealed), with its start as the event id. A client that reconnects with `Last-Event-ID` gets the seconds it missed (at most
 * 15 minutes) before the live frames. The stream ends, with a final `end` event, when its token
 * expires or is revoked.
 */
@Injectable()
export class MonitoringStreams implements OnModuleDestroy {
  private readonly open = new Set<(reason: StreamEnd) => void>();

  constructor(
    private readonly ingest: TelemetryIngest,
    private readonly revocations: TokenRevocationService,
  ) {}

  get openCount(): number {
    return this.open.size;
  }

  onModuleDestroy(): void {
    for (const end of [...this.open]) end('shutdown');
  }

  /** Serves one stream on `res` until the client leaves or the token ends; a 503 when too many are open. */
  serve(res: ServerResponse, user: AuthenticatedUser, lastEventId: string | undefined): void {
    if (this.open.size >= MAX_OPEN_STREAMS) throw new DomainError('SERVICE_UNAVAILABLE', `At most ${MAX_OPEN_STREAMS} monitoring streams may be open`);
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    const resumeFrom = /^\d{1,15}$/.test(lastEventId ?? '') ? Number(lastEventId) + SECOND_MS : undefined;
    let next = resumeFrom;
    const timers: NodeJS.Timeout[] = [];
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

    // A second goes out once it is settled (every live data plane reported it, or it is sealed), so
    // a live frame carries the second's exact counts; checked a few times a second so it goes out
    // soon after the last window arrives.
    const sendDue = (): void => {
      // The latest second that ended at least FRAME_DELAY_MS ago.
      const latest = Math.floor((Date.now() - FRAME_DELAY_MS) / SECOND_MS) * SECOND_MS - SECOND_MS;
      const from = Math.max(next ?? latest, latest - (MAX_REPLAY_SECONDS - 1) * SECOND_MS);
      let until = from;
      while (until <= latest && this.ingest.series.settled(until)) until += SECOND_MS;
      next = until;
      if (until === from) return;
      const known = new Map<number, ClusterSecond>();
      for (const second of [...this.ingest.series.seconds(from, until), ...this.ingest.series.openSeconds()]) known.set(second.start, second);
      for (let start = from; start < until; start += SECOND_MS) {
        // A second no data plane reported is a frame too: ids stay contiguous and a gap means loss.
        const second = known.get(start) ?? emptySecond(start);
        res.write(`id: ${start}\nevent: second\ndata: ${JSON.stringify(second)}\n\n`);
      }
    };
    sendDue();
    const tick = setInterval(sendDue, SEND_CHECK_MS);
    timers.push(tick);

    const armExpiry = (): void => {
      const left = user.expiresAt.getTime() - Date.now();
      if (left <= 0) end('token_expired');
      else timers.push(setTimeout(armExpiry, Math.min(left, MAX_TIMER_MS)));
    };
    armExpiry();
    const checkRevocation = (): void => {
      this.revocations.isRevoked(user.jti, user.id).then(
        (revoked) => (revoked ? end('token_revoked') : undefined),
        () => undefined, // the database may blip; the next check or the expiry still ends it
      );
    };
    timers.push(setInterval(checkRevocation, REVOCATION_CHECK_MS));
  }
}

function emptySecond(start: number): ClusterSecond {
  const traffic = {
    requests: 0,
    statusClasses: [0, 0, 0, 0] as ClusterSecond['total']['statusClasses'],
    outcomes: [0, 0, 0, 0, 0, 0, 0] as ClusterSecond['total']['outcomes'],
    retries: 0,
    bytesIn: 0,
    bytesOut: 0,
    latency: { p50: 0, p95: 0, p99: 0, meanMs: 0 },
  };
  return { start, durationMs: SECOND_MS, reporting: 0, total: traffic, routes: [], upstreams: [] };
}
