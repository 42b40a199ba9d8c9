import type { MigrationInterface, QueryRunner } from 'typeorm';

export class TelemetryIntervalsSqlite1763830000000 implements MigrationInterface {
  name = 'TelemetryIntervalsSqlite1763830000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE "telemetry_intervals" ("resolution" varchar(8) NOT NULL, "start" bigint NOT NULL, "data" text NOT NULL, PRIMARY KEY ("resolution", "start"))`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE "telemetry_intervals"`);
  }
}
