import type { MigrationInterface, QueryRunner } from 'typeorm';

const NOW_MS = "(strftime('%Y-%m-%d %H:%M:%f', 'now'))";

/** The first schema on SQLite. Timestamps are `datetime` text in UTC with milliseconds. */
export class InitialSchemaSqlite1763780000000 implements MigrationInterface {
  name = 'InitialSchemaSqlite1763780000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE "routes" (
      "id" varchar(64) PRIMARY KEY NOT NULL,
      "path" varchar(2048) NOT NULL,
      "upstream" varchar(2048) NOT NULL,
      "enabled" boolean NOT NULL,
      "source" varchar(8) NOT NULL CHECK ("source" IN ('api', 'file')),
      "priority" integer NOT NULL,
      "description" text NOT NULL DEFAULT (''),
      "tags" text NOT NULL,
      "definition" text NOT NULL,
      "created_at" datetime NOT NULL DEFAULT ${NOW_MS},
      "updated_at" datetime NOT NULL DEFAULT ${NOW_MS},
      "deleted_at" datetime
    )`);
    await db.query(`CREATE INDEX "IDX_routes_path" ON "routes" ("path")`);
    await db.query(`CREATE INDEX "IDX_routes_created_at" ON "routes" ("created_at")`);
    // Decision 9 held by the database too: one enabled, not deleted route per path.
    await db.query(`CREATE UNIQUE INDEX "UQ_routes_live_path" ON "routes" ("path") WHERE "enabled" = 1 AND "deleted_at" IS NULL`);

    await db.query(`CREATE TABLE "config_revision" ("id" integer PRIMARY KEY NOT NULL, "revision" integer NOT NULL)`);
    await db.query(`INSERT INTO "config_revision" ("id", "revision") VALUES (1, 0)`);

    await db.query(`CREATE TABLE "users" (
      "id" varchar(36) PRIMARY KEY NOT NULL,
      "email" varchar(320) NOT NULL,
      "password_hash" varchar(255) NOT NULL,
      "role" varchar(16) NOT NULL CHECK ("role" IN ('admin', 'user')),
      "created_at" datetime NOT NULL DEFAULT ${NOW_MS},
      CONSTRAINT "UQ_users_email" UNIQUE ("email")
    )`);

    await db.query(`CREATE TABLE "revoked_tokens" ("jti" varchar(64) PRIMARY KEY NOT NULL, "expires_at" datetime NOT NULL)`);
    await db.query(`CREATE INDEX "IDX_revoked_tokens_expires_at" ON "revoked_tokens" ("expires_at")`);

    await db.query(`CREATE TABLE "audit_log" (
      "id" varchar(36) PRIMARY KEY NOT NULL,
      "at" datetime NOT NULL,
      "actor" varchar(320) NOT NULL,
      "action" varchar(64) NOT NULL,
      "target" varchar(255),
      "ip" varchar(64),
      "details" text
    )`);
    await db.query(`CREATE INDEX "IDX_audit_log_at" ON "audit_log" ("at")`);
  }

  async down(db: QueryRunner): Promise<void> {
    for (const table of ['audit_log', 'revoked_tokens', 'users', 'config_revision', 'routes']) await db.query(`DROP TABLE "${table}"`);
  }
}
