import type { MigrationInterface, QueryRunner } from 'typeorm';

const NOW_MS = "(strftime('%Y-%m-%d %H:%M:%f', 'now'))";

/** API keys (decision 22): the HMAC digest and a display prefix, never the key. */
export class ApiKeysSqlite1763800000000 implements MigrationInterface {
  name = 'ApiKeysSqlite1763800000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE "api_keys" (
      "id" varchar(36) PRIMARY KEY NOT NULL,
      "name" varchar(100) NOT NULL,
      "prefix" varchar(16) NOT NULL,
      "digest" varchar(64) NOT NULL,
      "created_by" varchar(36) NOT NULL,
      "created_at" datetime NOT NULL DEFAULT ${NOW_MS},
      "expires_at" datetime,
      "revoked_at" datetime,
      CONSTRAINT "UQ_api_keys_digest" UNIQUE ("digest")
    )`);
    await db.query(`CREATE INDEX "IDX_api_keys_created_at" ON "api_keys" ("created_at")`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE "api_keys"`);
  }
}
