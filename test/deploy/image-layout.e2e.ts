import assert from 'node:assert/strict';
import { chownSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { clusterSecrets, controlPlaneEnv, dataPlaneEnv, makeTempDir, REPO_ROOT, TEST_REDIS_URL } from '@gateway/testing';
import { buildImageLayout, type ImageLayout } from './image-layout';
import { startFromImage } from './image-process';

/*
 * The container image without a container engine: the runtime stage of ./Dockerfile is rebuilt in
 * a temp directory from its own COPY and RUN lines (the same `npm ci --omit=dev`), and every role
 * is started from it as the image's non-root user. A file the runtime imports but the Dockerfile
 * does not copy, a dev dependency the runtime needs, or a broken ENTRYPOINT fails here.
 */
describe('container image layout (Dockerfile runtime stage)', () => {
  const temp = makeTempDir('gateway-image-');
  let layout: ImageLayout;

  before(() => {
    layout = buildImageLayout(readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8'), 'runtime', {
      context: REPO_ROOT,
      builtStageName: 'build',
      root: temp.path,
    });
  });
  after(() => temp.remove());

  it('runs as a non-root user whose only writable place is the data directory', () => {
    assert.ok(layout.user !== undefined && layout.user.uid !== 0, 'USER is a numeric non-root uid');
    assert.equal(layout.env['GATEWAY_DATA_DIR'], '/var/lib/gateway');
    assert.equal(layout.env['GATEWAY_CONFIG'], '/etc/gateway/proxy.yml');
    assert.deepEqual(layout.entrypoint, ['gateway']);
  });

  it('starts the one-process gateway (--role all) from the image defaults, and SIGTERM reaches it', async () => {
    const gateway = await startFromImage(layout);
    // `env -S node` in the shebang execs node in place: the pid the runtime signals is node's.
    const argv = gateway.commandLine();
    assert.equal(path.basename(argv[0] as string), 'node', argv.join(' '));
    assert.ok(argv.includes('--max-semi-space-size=32'), argv.join(' '));
    assert.equal(await gateway.stop(), 0, gateway.output.join('\n'));
  });

  it('starts a control plane (SQLite, secrets from the environment) and a data plane following it', async () => {
    const secrets = clusterSecrets('image-layout');
    const controlPlane = await startFromImage(layout, {
      args: ['start', '--role', 'control-plane'],
      env: controlPlaneEnv(secrets, TEST_REDIS_URL) as Record<string, string | undefined>,
    });
    try {
      // Each pod mounts its own volume at the data directory (here: a directory of the layout).
      const volume = layout.hostPath('/mnt/data-plane');
      mkdirSync(path.dirname(volume), { recursive: true, mode: 0o755 });
      mkdirSync(volume, { mode: 0o700 });
      chownSync(volume, layout.user?.uid ?? 0, layout.user?.gid ?? 0);
      const dataPlane = await startFromImage(layout, {
        args: ['start', '--role', 'data-plane'],
        env: { ...(dataPlaneEnv(secrets, TEST_REDIS_URL, controlPlane.url) as Record<string, string | undefined>), GATEWAY_DATA_DIR: volume },
      });
      assert.equal(await dataPlane.stop(), 0, dataPlane.output.join('\n'));
    } finally {
      assert.equal(await controlPlane.stop(), 0, controlPlane.output.join('\n'));
    }
  });
});
