import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Runbooks with their executions, breaker holds (they travel in the snapshot), AI incidents and AI usage (the budget). */
export class RunbooksAndAiPostgres1763890000000 implements MigrationInterface {
  name = 'RunbooksAndAiPostgres1763890000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE "breaker_holds" (
      "route_id" varchar(64) PRIMARY KEY NOT NULL,
      "until" timestamptz NOT NULL,
      "execution_id" varchar(36) NOT NULL
    )`);
    await db.query(`CREATE TABLE "runbooks" (
      "id" varchar(36) PRIMARY KEY NOT NULL,
      "name" varchar(100) NOT NULL UNIQUE,
      "enabled" boolean NOT NULL,
      "trigger" text NOT NULL,
      "actions" text NOT NULL,
      "safety" text NOT NULL,
      "created_at" timestamptz NOT NULL,
      "updated_at" timestamptz NOT NULL
    )`);
    await db.query(`CREATE TABLE "runbook_executions" (
      "id" varchar(36) PRIMARY KEY NOT NULL,
      "runbook_id" varchar(36) NOT NULL,
      "runbook_name" varchar(100) NOT NULL,
      "event_id" varchar(64) NOT NULL,
      "event_type" varchar(100) NOT NULL,
      "event" text NOT NULL,
      "status" varchar(24) NOT NULL,
      "dry_run" boolean NOT NULL,
      "results" text NOT NULL,
      "decided_by" varchar(320),
      "decided_at" timestamptz,
      "expires_at" timestamptz,
      "rollback_at" timestamptz,
      "next_due_at" timestamptz,
      "created_at" timestamptz NOT NULL,
      "updated_at" timestamptz NOT NULL
    )`);
    await db.query(`CREATE UNIQUE INDEX "runbook_executions_runbook_event" ON "runbook_executions" ("runbook_id", "event_id")`);
    await db.query(`CREATE INDEX "runbook_executions_created" ON "runbook_executions" ("created_at")`);
    await db.query(`CREATE INDEX "runbook_executions_due" ON "runbook_executions" ("next_due_at")`);
    await db.query(`CREATE TABLE "ai_incidents" (
      "id" varchar(36) PRIMARY KEY NOT NULL,
      "title" varchar(200) NOT NULL,
      "status" varchar(16) NOT NULL,
      "severity" varchar(16) NOT NULL,
      "routes" text NOT NULL,
      "upstreams" text NOT NULL,
      "timeline" text NOT NULL,
      "hypothesis" text,
      "last_event_at" timestamptz NOT NULL,
      "resolved_at" timestamptz,
      "created_at" timestamptz NOT NULL,
      "updated_at" timestamptz NOT NULL
    )`);
    await db.query(`CREATE TABLE "ai_usage" (
      "id" varchar(36) PRIMARY KEY NOT NULL,
      "month" varchar(7) NOT NULL,
      "model" varchar(200) NOT NULL,
      "prompt_tokens" integer NOT NULL,
      "completion_tokens" integer NOT NULL,
      "cost_usd" double precision NOT NULL,
      "created_at" timestamptz NOT NULL
    )`);
    await db.query(`CREATE INDEX "ai_usage_month" ON "ai_usage" ("month")`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE "ai_usage"`);
    await db.query(`DROP TABLE "ai_incidents"`);
    await db.query(`DROP TABLE "runbook_executions"`);
    await db.query(`DROP TABLE "runbooks"`);
    await db.query(`DROP TABLE "breaker_holds"`);
  }
}
