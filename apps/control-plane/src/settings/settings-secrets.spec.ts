import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IsOptional, IsString } from 'class-validator';
import { SecretBox } from '../encryption/secret-box';
import { diffSettings } from './settings-diff';
import { validateSettingsDocument } from './settings-document.validator';
import { MASKED_SECRET, type SettingsDocument } from './settings-section';
import { SettingsSecrets } from './settings-secrets';
import { SettingsSectionRegistry } from './settings-sections.registry';

/** A section as another feature registers one: a plain field and a secret. */
class SessionServiceSettings {
  @IsOptional()
  @IsString({ message: 'apiUrl must be a string' })
  apiUrl!: string | null;
}

function setup() {
  const registry = new SettingsSectionRegistry();
  registry.register({ key: 'sessionService', schema: SessionServiceSettings, defaults: () => ({ apiUrl: null }), secretFields: ['clientSecret'] });
  const secrets = new SettingsSecrets(new SecretBox('settings-encryption-key-0123456789abcdef'), registry);
  const save = (raw: unknown, stored: SettingsDocument): SettingsDocument => {
    const validation = validateSettingsDocument(raw, registry.all());
    assert.ok(validation.ok, JSON.stringify(validation));
    return secrets.seal(validation.document, stored);
  };
  return { registry, secrets, save };
}

test('a secret is stored sealed, read masked, opened only through the owner; the plaintext is nowhere in the stored document', () => {
  const { secrets, save } = setup();
  const stored = save({ sessionService: { apiUrl: 'https://sessions.example.com', clientSecret: 'cl13nt-s3cret-value' } }, {});
  const sealed = stored['sessionService']?.['clientSecret'];
  assert.ok(SecretBox.isSealed(sealed));
  assert.ok(!JSON.stringify(stored).includes('cl13nt-s3cret-value'));
  assert.equal(secrets.mask(stored)['sessionService']?.['clientSecret'], MASKED_SECRET);
  assert.equal(secrets.mask(stored)['sessionService']?.['apiUrl'], 'https://sessions.example.com');
  assert.equal(secrets.open(stored, 'sessionService', 'clientSecret'), 'cl13nt-s3cret-value');
  // Sealed for its field: moved to another field it does not open.
  assert.throws(() => secrets.open({ general: { clientSecret: sealed } }, 'general', 'clientSecret'));
});

test('write-only: left out or sent masked keeps the secret, null or empty removes it, a new value replaces it', () => {
  const { secrets, save } = setup();
  const first = save({ sessionService: { clientSecret: 'first-secret' } }, {});
  const kept = save({ sessionService: { apiUrl: 'https://a.example.com' } }, first);
  assert.equal(kept['sessionService']?.['clientSecret'], first['sessionService']?.['clientSecret']);
  const masked = save({ sessionService: { clientSecret: MASKED_SECRET } }, first);
  assert.equal(secrets.open(masked, 'sessionService', 'clientSecret'), 'first-secret');
  for (const removal of [null, '']) {
    const removed = save({ sessionService: { clientSecret: removal } }, first);
    assert.equal(removed['sessionService']?.['clientSecret'], undefined);
    assert.equal(secrets.mask(removed)['sessionService']?.['clientSecret'], null);
  }
  const replaced = save({ sessionService: { clientSecret: 'second-secret' } }, first);
  assert.equal(secrets.open(replaced, 'sessionService', 'clientSecret'), 'second-secret');
});

test('a secret of the wrong type is a field error naming it, with the section\'s own errors at the same time', () => {
  const { registry } = setup();
  const validation = validateSettingsDocument({ sessionService: { clientSecret: 42, apiUrl: 7 } }, registry.all());
  assert.ok(!validation.ok);
  assert.deepEqual(validation.errors.map((e) => e.field).sort(), ['sessionService.apiUrl', 'sessionService.clientSecret']);
});

test('the audit diff names a changed secret without any value, sealed or plain', () => {
  const { secrets, save } = setup();
  const before = save({ sessionService: { apiUrl: 'https://a.example.com', clientSecret: 'old-secret-value' } }, {});
  const after = save({ sessionService: { apiUrl: 'https://b.example.com', clientSecret: 'new-secret-value' } }, before);
  const changes = diffSettings(before, after, (section, field) => secrets.isSecret(section, field));
  assert.deepEqual(changes, [
    { field: 'sessionService.apiUrl', from: 'https://a.example.com', to: 'https://b.example.com' },
    { field: 'sessionService.clientSecret', secret: true },
  ]);
  assert.deepEqual(diffSettings(before, before, (section, field) => secrets.isSecret(section, field)), []);
});

test('sections are registered once, under a camelCase key', () => {
  const { registry } = setup();
  assert.throws(() => registry.register({ key: 'general', schema: SessionServiceSettings, defaults: () => ({ apiUrl: null }) }), /registered twice/);
  assert.throws(() => registry.register({ key: 'Bad-Key', schema: SessionServiceSettings, defaults: () => ({ apiUrl: null }) }), /camelCase/);
  assert.deepEqual(registry.all().map((section) => section.key), ['general', 'sessionService']);
});
