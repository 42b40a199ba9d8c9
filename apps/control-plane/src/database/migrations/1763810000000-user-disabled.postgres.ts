import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Users can be disabled (issue 14); the token generation refuses tokens issued before a disable. */
export class UserDisabledPostgres1763810000000 implements MigrationInterface {
  name = 'UserDisabledPostgres1763810000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE "users" ADD COLUMN "disabled" boolean NOT NULL DEFAULT false`);
    await db.query(`ALTER TABLE "users" ADD COLUMN "token_generation" integer NOT NULL DEFAULT 0`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE "users" DROP COLUMN "token_generation"`);
    await db.query(`ALTER TABLE "users" DROP COLUMN "disabled"`);
  }
}
