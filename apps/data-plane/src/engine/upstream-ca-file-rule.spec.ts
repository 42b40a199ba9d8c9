import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { makeTempDir, makeTestCa, type TestCa } from '@gateway/testing';
import type { ProxyConfig } from '@gateway/route-model';
import { recordingLogger, validConfig as config } from '../testing/spec-helpers.fixture';
import { caDirectoriesRule } from './upstream-ca-file-rule';
import { UpstreamTlsResolver } from './upstream-tls';

describe('the CA file rule on upstreams from a control plane (GATEWAY_CA_DIRS on the data plane)', () => {
  const root = makeTempDir('dp-ca-rule-');
  const allowed = path.join(root.path, 'ca');
  const elsewhere = path.join(root.path, 'elsewhere');
  const inside = path.join(allowed, 'inside.pem');
  const outside = path.join(elsewhere, 'outside.pem');
  const escape = path.join(allowed, 'escape.pem');
  let ca: TestCa;
  let source: ProxyConfig;

  before(() => {
    ca = makeTestCa('data-plane rule CA');
    mkdirSync(allowed);
    mkdirSync(elsewhere);
    // Both are good CA bundles: only where they lie tells them apart.
    copyFileSync(ca.certPath, inside);
    copyFileSync(ca.certPath, outside);
    symlinkSync(outside, escape);
    source = config({
      // The data plane's own proxy.yml: not held to the directories.
      proxy: { upstreamTls: { caFile: outside } },
      upstreams: [
        { name: 'inside', url: 'https://127.0.0.1:1', tls: { caFile: inside } },
        { name: 'outside', url: 'https://127.0.0.1:2', tls: { caFile: outside } },
        { name: 'escape', url: 'https://127.0.0.1:3', tls: { caFile: escape } },
        { name: 'shadow', url: 'https://127.0.0.1:4', tls: { caFile: '/etc/shadow' } },
        { name: 'default', url: 'https://127.0.0.1:5' },
      ],
      routes: [],
    });
  });
  after(() => {
    ca?.remove();
    root.remove();
  });

  test('inside the directories the file is read; outside, through a link out, or /etc/shadow: that upstream alone is refused, naming upstream and field', () => {
    const logger = recordingLogger();
    const resolver = new UpstreamTlsResolver(source, logger, caDirectoriesRule([allowed]));
    assert.deepEqual(resolver.forUpstream('inside').ca, Buffer.from(ca.cert));
    assert.equal(resolver.forUpstream('inside').refusal, undefined);
    const dirs = `GATEWAY_CA_DIRS: ${allowed}`;
    assert.equal(resolver.forUpstream('outside').refusal, `upstream 'outside': upstreams[1].tls.caFile must be inside a CA directory (${dirs})`);
    assert.equal(resolver.forUpstream('escape').refusal, `upstream 'escape': upstreams[2].tls.caFile: ${escape} leads out of the CA directories (a symbolic link)`);
    assert.equal(resolver.forUpstream('shadow').refusal, `upstream 'shadow': upstreams[3].tls.caFile must be inside a CA directory (${dirs})`);
    for (const [name, index] of [['outside', 1], ['escape', 2], ['shadow', 3]] as const) {
      const tls = resolver.forUpstream(name);
      assert.equal(tls.ca, undefined, `${name}: no CA, no fallback to other roots`);
      assert.equal(tls.refusalSummary, `upstream '${name}': upstreams[${index}].tls.caFile cannot be loaded (the data plane's log says which file and why)`);
    }
    const logged = logger.lines.filter((l) => l.level === 'error').map((l) => [l.fields['upstream'], l.fields['field'], l.fields['file']]);
    assert.deepEqual(logged, [
      ['outside', 'upstreams[1].tls.caFile', outside],
      ['escape', 'upstreams[2].tls.caFile', escape],
      ['shadow', 'upstreams[3].tls.caFile', '/etc/shadow'],
    ]);
  });

  test("proxy.upstreamTls.caFile is the data plane's own file: read wherever it lies", () => {
    const resolver = new UpstreamTlsResolver(source, recordingLogger(), caDirectoriesRule([allowed]));
    assert.deepEqual(resolver.forUpstream('default').ca, Buffer.from(ca.cert));
    assert.deepEqual(resolver.forUpstream(undefined).ca, Buffer.from(ca.cert));
  });

  test('without the rule (upstreams of the data plane\'s own proxy.yml) the same files are read: the rule, not the content, refused them', () => {
    const resolver = new UpstreamTlsResolver(source, recordingLogger());
    assert.deepEqual(resolver.forUpstream('outside').ca, Buffer.from(ca.cert));
    assert.deepEqual(resolver.forUpstream('escape').ca, Buffer.from(ca.cert));
  });
});
