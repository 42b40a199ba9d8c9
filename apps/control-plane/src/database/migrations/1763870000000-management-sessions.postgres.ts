import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Management sessions (decision 23): the gateway's own, or the mirror of a session service's,
 * found by the IdP's NameID for single logout; the one-time login code carries the IdP session.
 */
export class ManagementSessionsPostgres1763870000000 implements MigrationInterface {
  name = 'ManagementSessionsPostgres1763870000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE "management_sessions" (
      "id" varchar(128) PRIMARY KEY NOT NULL,
      "user_id" varchar(36) NOT NULL,
      "name_id" varchar(1024),
      "name_id_format" varchar(256),
      "session_index" varchar(256),
      "expires_at" timestamptz NOT NULL,
      "revoked_at" timestamptz,
      "created_at" timestamptz NOT NULL
    )`);
    await db.query(`CREATE INDEX "IDX_management_sessions_name_id" ON "management_sessions" ("name_id")`);
    await db.query(`ALTER TABLE "saml_login_codes" ADD COLUMN "name_id" varchar(1024)`);
    await db.query(`ALTER TABLE "saml_login_codes" ADD COLUMN "name_id_format" varchar(256)`);
    await db.query(`ALTER TABLE "saml_login_codes" ADD COLUMN "session_index" varchar(256)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE "saml_login_codes" DROP COLUMN "session_index"`);
    await db.query(`ALTER TABLE "saml_login_codes" DROP COLUMN "name_id_format"`);
    await db.query(`ALTER TABLE "saml_login_codes" DROP COLUMN "name_id"`);
    await db.query(`DROP INDEX "IDX_management_sessions_name_id"`);
    await db.query(`DROP TABLE "management_sessions"`);
  }
}
