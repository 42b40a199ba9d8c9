import type { MigrationInterface, QueryRunner } from 'typeorm';

const NOW_MS = "(strftime('%Y-%m-%d %H:%M:%f', 'now'))";

/** Upstreams made through /api/upstreams (issue 18); proxy.yml ones stay in proxy_file_state. */
export class UpstreamsSqlite1763918000000 implements MigrationInterface {
  name = 'UpstreamsSqlite1763918000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE "upstreams" (
      "name" varchar(64) PRIMARY KEY NOT NULL,
      "definition" text NOT NULL,
      "created_at" datetime NOT NULL DEFAULT ${NOW_MS},
      "updated_at" datetime NOT NULL DEFAULT ${NOW_MS}
    )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE "upstreams"`);
  }
}
