import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ProxyFileStatePostgres1763790000000 implements MigrationInterface {
  name = 'ProxyFileStatePostgres1763790000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE "proxy_file_state" ("id" integer PRIMARY KEY NOT NULL, "upstreams" text NOT NULL, "authentication" text)`);
    await db.query(`INSERT INTO "proxy_file_state" ("id", "upstreams", "authentication") VALUES (1, '[]', NULL)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE "proxy_file_state"`);
  }
}
