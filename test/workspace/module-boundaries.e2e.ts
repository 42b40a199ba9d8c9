import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ESLint } from 'eslint';
import { REPO_ROOT } from '@gateway/testing';

/*
 * Proves once that the workspace's module-boundary rules go red (style guide, "Workspace"; issue
 * 11): fixture sources are linted with the repository's own eslint.config.mjs, each placed as if it
 * were a file of the project it names, and the @nx/enforce-module-boundaries error is asserted.
 * A rule that silently stops applying (no project graph, a tag renamed) fails this test.
 */
const BOUNDARY_RULE = '@nx/enforce-module-boundaries';

describe('Nx module boundaries', () => {
  let eslint: ESLint;

  before(() => {
    // The Nx rule reads the cached project graph (what `npm run lint` builds first) and is skipped without one.
    const nxPackage = require.resolve('nx/package.json', { paths: [REPO_ROOT] });
    const nx = path.resolve(path.dirname(nxPackage), (JSON.parse(readFileSync(nxPackage, 'utf8')) as { bin: { nx: string } }).bin.nx);
    const graph = spawnSync(process.execPath, [nx, 'show', 'projects'], {
      cwd: REPO_ROOT,
      env: { ...process.env, NX_DAEMON: 'false' },
      encoding: 'utf8',
    });
    assert.equal(graph.status, 0, graph.stderr);
    // import/no-cycle resolves imports on disk and throws on a file that is not there; it is not under test.
    eslint = new ESLint({ cwd: REPO_ROOT, overrideConfig: { rules: { 'import/no-cycle': 'off' } } });
  });

  /** The boundary-rule messages for `source` linted as the file at `file` (relative to the repository root). */
  async function boundaryErrors(file: string, source: string): Promise<string[]> {
    const [result] = await eslint.lintText(source, { filePath: path.join(REPO_ROOT, file) });
    assert.ok(result !== undefined);
    assert.deepEqual(result.messages.filter((message) => message.fatal === true), [], 'the fixture parses');
    assert.ok(!result.messages.some((message) => /No cached ProjectGraph/.test(message.message)), 'the rule ran');
    return result.messages.filter((message) => message.ruleId === BOUNDARY_RULE && message.severity === 2).map((message) => message.message);
  }

  test('the data plane importing the control plane (an app, outside the public entries of the planes) is an error', async () => {
    const errors = await boundaryErrors('apps/data-plane/src/engine/boundary-fixture.ts', "import { readStoredSecret } from '@gateway/control-plane/dist/config/secret-file';\nexport const fixture = readStoredSecret;\n");
    assert.equal(errors.length, 1, JSON.stringify(errors));
    assert.match(errors[0]!, /^Imports of apps are forbidden$/);
  });

  test('the data plane importing NestJS is an error', async () => {
    const errors = await boundaryErrors('apps/data-plane/src/engine/boundary-fixture.ts', "import { Injectable } from '@nestjs/common';\nexport const fixture = Injectable;\n");
    assert.equal(errors.length, 1, JSON.stringify(errors));
    assert.match(errors[0]!, /tagged with "scope:data-plane" is not allowed to import "@nestjs\/common"/);
  });

  const TESTING_IMPORT = "import { makeTempDir } from '@gateway/testing';\nexport const fixture = makeTempDir;\n";

  for (const file of ['apps/data-plane/src/engine/boundary-fixture.ts', 'apps/control-plane/src/routes/boundary-fixture.ts', 'apps/cli/src/boundary-fixture.ts', 'libs/config-file/src/boundary-fixture.ts']) {
    test(`production code may not import @gateway/testing: ${file}`, async () => {
      const errors = await boundaryErrors(file, TESTING_IMPORT);
      assert.equal(errors.length, 1, JSON.stringify(errors));
      assert.match(errors[0]!, /can only depend on libs tagged with "\/\^type:\(\?!testing\$\)\/"/);
    });
  }

  for (const file of ['apps/data-plane/src/engine/boundary-fixture.spec.ts', 'libs/route-model/src/boundary-fixture.spec.ts', 'test/proxy/boundary-fixture.e2e.ts', 'tools/bench/src/boundary-fixture.ts', 'apps/control-plane/src/testing/boundary-fixture.ts']) {
    test(`test code may: ${file}`, async () => {
      assert.deepEqual(await boundaryErrors(file, TESTING_IMPORT), []);
    });
  }
});
