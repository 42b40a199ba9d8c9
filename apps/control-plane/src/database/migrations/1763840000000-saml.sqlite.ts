import type { MigrationInterface, QueryRunner } from 'typeorm';

/** SAML SSO state shared by every control-plane instance: open requests, seen assertions, one-time codes. */
export class SamlSqlite1763840000000 implements MigrationInterface {
  name = 'SamlSqlite1763840000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE "saml_requests" (
      "id" varchar(64) PRIMARY KEY NOT NULL,
      "relay_state" varchar(64) NOT NULL,
      "return_url" varchar(2048) NOT NULL,
      "browser_binding" varchar(64) NOT NULL,
      "expires_at" datetime NOT NULL,
      CONSTRAINT "UQ_saml_requests_relay_state" UNIQUE ("relay_state")
    )`);
    await db.query(`CREATE TABLE "saml_assertions" ("id" varchar(64) PRIMARY KEY NOT NULL, "expires_at" datetime NOT NULL)`);
    await db.query(`CREATE TABLE "saml_login_codes" (
      "code_hash" varchar(64) PRIMARY KEY NOT NULL,
      "browser_binding" varchar(64) NOT NULL,
      "user_id" varchar(36) NOT NULL,
      "name" varchar(320) NOT NULL,
      "expires_at" datetime NOT NULL
    )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE "saml_login_codes"`);
    await db.query(`DROP TABLE "saml_assertions"`);
    await db.query(`DROP TABLE "saml_requests"`);
  }
}
