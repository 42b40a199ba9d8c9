import { Module, type DynamicModule } from '@nestjs/common';
import type { LogRingBuffer } from '@gateway/logging';
import { LogsController } from './logs.controller';
import { LOG_BUFFER } from './logs.tokens';

/** `GET /api/logs` over the buffer the logger writes to (created in start.ts with the logger). */
@Module({})
export class LogsModule {
  static register(buffer: LogRingBuffer): DynamicModule {
    return {
      module: LogsModule,
      controllers: [LogsController],
      providers: [{ provide: LOG_BUFFER, useValue: buffer }],
    };
  }
}
