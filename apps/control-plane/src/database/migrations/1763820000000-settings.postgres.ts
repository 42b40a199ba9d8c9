import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Settings (issue 14): every saved document, the highest version current. */
export class SettingsPostgres1763820000000 implements MigrationInterface {
  name = 'SettingsPostgres1763820000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE "settings_versions" (
      "version" integer PRIMARY KEY NOT NULL,
      "document" text NOT NULL,
      "changed_at" timestamptz NOT NULL,
      "actor" varchar(320) NOT NULL,
      "restored_from" integer
    )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE "settings_versions"`);
  }
}
