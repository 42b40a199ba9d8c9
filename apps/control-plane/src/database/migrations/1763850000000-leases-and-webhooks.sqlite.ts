import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Leases (run-once work across instances) and webhooks with their durable delivery queue. */
export class LeasesAndWebhooksSqlite1763850000000 implements MigrationInterface {
  name = 'LeasesAndWebhooksSqlite1763850000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE "leases" (
      "name" varchar(100) PRIMARY KEY NOT NULL,
      "holder" varchar(64) NOT NULL,
      "token" integer NOT NULL,
      "expires_at_ms" integer NOT NULL
    )`);
    await db.query(`CREATE TABLE "webhooks" (
      "id" varchar(36) PRIMARY KEY NOT NULL,
      "url" varchar(2048) NOT NULL,
      "events" text NOT NULL,
      "severity" text,
      "enabled" boolean NOT NULL,
      "description" varchar(200),
      "created_by" varchar(36) NOT NULL,
      "secret" text NOT NULL,
      "previous_secret" text,
      "previous_secret_until" datetime,
      "disabled_reason" varchar(200),
      "failing_since" datetime,
      "created_at" datetime NOT NULL,
      "updated_at" datetime NOT NULL
    )`);
    await db.query(`CREATE TABLE "webhook_deliveries" (
      "id" varchar(36) PRIMARY KEY NOT NULL,
      "webhook_id" varchar(36) NOT NULL REFERENCES "webhooks" ("id") ON DELETE CASCADE,
      "event_id" varchar(64) NOT NULL,
      "event_type" varchar(100) NOT NULL,
      "payload" text NOT NULL,
      "status" varchar(16) NOT NULL,
      "attempts" integer NOT NULL,
      "next_attempt_at" datetime,
      "counts_for_health" boolean NOT NULL,
      "max_attempts" integer NOT NULL,
      "created_at" datetime NOT NULL,
      "updated_at" datetime NOT NULL
    )`);
    await db.query(`CREATE INDEX "IDX_webhook_deliveries_due" ON "webhook_deliveries" ("status", "next_attempt_at")`);
    await db.query(`CREATE INDEX "IDX_webhook_deliveries_webhook" ON "webhook_deliveries" ("webhook_id", "created_at")`);
    // One delivery per (webhook, event): instances that all hear an event enqueue it once.
    await db.query(`CREATE UNIQUE INDEX "UQ_webhook_deliveries_event" ON "webhook_deliveries" ("webhook_id", "event_id")`);
    await db.query(`CREATE TABLE "webhook_attempts" (
      "id" varchar(36) PRIMARY KEY NOT NULL,
      "delivery_id" varchar(36) NOT NULL REFERENCES "webhook_deliveries" ("id") ON DELETE CASCADE,
      "attempt" integer NOT NULL,
      "at" datetime NOT NULL,
      "status_code" integer,
      "latency_ms" integer NOT NULL,
      "response_excerpt" text,
      "error" varchar(500)
    )`);
    await db.query(`CREATE INDEX "IDX_webhook_attempts_delivery" ON "webhook_attempts" ("delivery_id", "attempt")`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE "webhook_attempts"`);
    await db.query(`DROP TABLE "webhook_deliveries"`);
    await db.query(`DROP TABLE "webhooks"`);
    await db.query(`DROP TABLE "leases"`);
  }
}
