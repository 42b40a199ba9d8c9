import { Module, type DynamicModule } from '@nestjs/common';
import type { LogRingBuffer } from '@gateway/logging';
import { RouteOperationsModule } from '../route-operations/route-operations.module';
import { LogsController } from './logs.controller';
import { LOG_BUFFER } from './logs.tokens';
import { RecentLogsService } from './recent-logs.service';

/**
 * `GET /api/logs` over the buffer the logger writes to (created in start.ts with the logger) and
 * the recent lines of data planes in other processes (asked over the bus).
 */
@Module({})
export class LogsModule {
  static register(buffer: LogRingBuffer): DynamicModule {
    return {
      module: LogsModule,
      imports: [RouteOperationsModule],
      controllers: [LogsController],
      providers: [{ provide: LOG_BUFFER, useValue: buffer }, RecentLogsService],
    };
  }
}
