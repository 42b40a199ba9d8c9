import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Upstreams made through /api/upstreams (issue 18); proxy.yml ones stay in proxy_file_state. */
export class UpstreamsPostgres1763918000000 implements MigrationInterface {
  name = 'UpstreamsPostgres1763918000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE "upstreams" (
      "name" varchar(64) PRIMARY KEY NOT NULL,
      "definition" text NOT NULL,
      "created_at" timestamptz NOT NULL DEFAULT now(),
      "updated_at" timestamptz NOT NULL DEFAULT now()
    )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE "upstreams"`);
  }
}
