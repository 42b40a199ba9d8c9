import { Module } from '@nestjs/common';
import { ApiFallbackController } from './api-fallback.controller';

/** Imported last by AppModule: see ApiFallbackController. */
@Module({ controllers: [ApiFallbackController] })
export class ApiFallbackModule {}
