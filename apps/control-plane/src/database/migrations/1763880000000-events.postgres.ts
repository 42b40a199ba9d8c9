import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The event layer: stored gateway events (GET /api/events) and the detectors' persisted state. */
export class EventsPostgres1763880000000 implements MigrationInterface {
  name = 'EventsPostgres1763880000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE "gateway_events" (
      "id" varchar(64) PRIMARY KEY NOT NULL,
      "type" varchar(100) NOT NULL,
      "severity" varchar(16),
      "route_id" varchar(100),
      "created_at_ms" bigint NOT NULL,
      "stored_at_ms" bigint NOT NULL,
      "data" text NOT NULL
    )`);
    await db.query(`CREATE INDEX "IDX_gateway_events_created" ON "gateway_events" ("created_at_ms")`);
    await db.query(`CREATE INDEX "IDX_gateway_events_stored" ON "gateway_events" ("stored_at_ms")`);
    await db.query(`CREATE TABLE "detector_state" (
      "name" varchar(50) PRIMARY KEY NOT NULL,
      "state" text NOT NULL,
      "evaluated_until_ms" bigint NOT NULL,
      "lease_token" integer NOT NULL
    )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE "detector_state"`);
    await db.query(`DROP TABLE "gateway_events"`);
  }
}
