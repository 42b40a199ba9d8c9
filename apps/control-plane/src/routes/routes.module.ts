import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { RouteEntity } from './route.entity';

/** Owns the routes table. The management API (controller, use cases) is added here. */
@Module({
  imports: [TypeOrmModule.forFeature([RouteEntity])],
  exports: [TypeOrmModule],
})
export class RoutesModule {}
