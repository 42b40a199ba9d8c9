import 'reflect-metadata';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DataSource } from 'typeorm';
import { loadDatabaseConfig } from '../config/control-plane-config';
import { dataSourceOptions } from '../database/data-source-options';
import { parseLeasesConfig } from '../config/leases-config';
import { Lease } from '../lease/lease.service';
import { migrate } from '../migrate';
import { createDialectFixture, DIALECTS, type DialectFixture } from '../testing/database-fixtures';
import { RevokedTokenEntity, subjectRevocationKey } from './revoked-token.entity';
import { TokenRevocationService } from './token-revocation.service';

for (const dialect of DIALECTS) {
  describe(`token revocation (${dialect})`, () => {
    let fixture: DialectFixture;
    let dataSource: DataSource;
    let revocations: TokenRevocationService;

    before(async () => {
      fixture = await createDialectFixture(dialect);
      // Schema changes run only through migrate(), as start() does.
      await migrate({ dataDir: fixture.dataDir, env: fixture.env });
      dataSource = new DataSource(dataSourceOptions(loadDatabaseConfig(fixture.env, fixture.dataDir)));
      await dataSource.initialize();
      revocations = new TokenRevocationService({ leases: parseLeasesConfig({}, []) }, new Lease(dataSource), dataSource.getRepository(RevokedTokenEntity));
    });
    after(async () => {
      await dataSource?.destroy();
      await fixture?.dispose();
    });

    test('a revoked jti or subject is refused; revoking twice is not an error', async () => {
      const future = new Date(Date.now() + 60_000);
      assert.equal(await revocations.isRevoked('jti-1', 'user-1'), false);
      await revocations.revoke('jti-1', future);
      await revocations.revoke('jti-1', future);
      assert.equal(await revocations.isRevoked('jti-1', 'user-1'), true);
      assert.equal(await revocations.isRevoked('jti-2', 'user-1'), false);
      await revocations.revoke(subjectRevocationKey('user-2'), future);
      assert.equal(await revocations.isRevoked('any-jti', 'user-2'), true);
    });

    test('revocations of expired tokens are pruned, live ones kept', async () => {
      await revocations.revoke('live', new Date(Date.now() + 60_000));
      await dataSource.getRepository(RevokedTokenEntity).insert({ jti: 'expired', expiresAt: new Date(Date.now() - 1000) });
      assert.equal(await revocations.prune(), 1);
      const left = (await dataSource.getRepository(RevokedTokenEntity).find()).map((r) => r.jti).sort();
      assert.ok(left.includes('live'));
      assert.ok(!left.includes('expired'));
      // revoke() prunes as it goes.
      await dataSource.getRepository(RevokedTokenEntity).insert({ jti: 'expired-2', expiresAt: new Date(Date.now() - 1000) });
      await revocations.revoke('another', new Date(Date.now() + 60_000));
      assert.equal(await dataSource.getRepository(RevokedTokenEntity).existsBy({ jti: 'expired-2' }), false);
    });
  });
}
