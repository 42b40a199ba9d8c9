import { Controller, Get, Headers, Query, Res } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { ApiTags } from '@nestjs/swagger';
import { CurrentUser, Roles } from '../auth/auth.decorators';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import { paginated, type ListEnvelope } from '../common/envelope';
import { pageOf } from '../common/page.query';
import { EventStore, type StoredEvent } from './event-store.service';
import { EventStreams } from './event-stream.service';
import { EventsQuery, EventStreamQuery } from './events.dto';
import { EventsDocs } from './events.openapi';

/** Stored gateway events and their live stream (docs/events.md); admin only. */
@ApiTags('events')
@Roles('admin')
@Controller('api/events')
export class EventsController {
  constructor(
    private readonly store: EventStore,
    private readonly streams: EventStreams,
  ) {}

  @EventsDocs.list()
  @Get()
  async list(@Query() query: EventsQuery): Promise<ListEnvelope<StoredEvent>> {
    const page = pageOf(query);
    const filter = {
      ...(query.type === undefined ? {} : { type: query.type }),
      ...(query.severity === undefined ? {} : { severity: query.severity }),
      ...(query.route === undefined ? {} : { route: query.route }),
      ...(query.from === undefined ? {} : { fromMs: Date.parse(query.from) }),
      ...(query.to === undefined ? {} : { toMs: Date.parse(query.to) }),
    };
    const { items, total } = await this.store.list(filter, page);
    return paginated(items, { total, ...page });
  }

  @EventsDocs.stream()
  @Get('stream')
  stream(@Query() _query: EventStreamQuery, @CurrentUser() user: AuthenticatedUser, @Headers('last-event-id') lastEventId: string | undefined, @Res() res: ServerResponse): void {
    this.streams.serve(res, user, lastEventId);
  }
}
