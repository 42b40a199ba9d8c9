import { Global, Module } from '@nestjs/common';
import { CONTROL_PLANE_CONFIG } from '../config/config.tokens';
import type { ControlPlaneConfig } from '../config/control-plane-config';
import { SecretBox } from './secret-box';

/**
 * Global, in the ground layer: the one SecretBox (SETTINGS_ENCRYPTION_KEY) that settings, and later
 * webhook secrets and the AI key, seal their secrets with.
 */
@Global()
@Module({
  providers: [{ provide: SecretBox, inject: [CONTROL_PLANE_CONFIG], useFactory: (config: ControlPlaneConfig) => new SecretBox(config.settingsEncryption.key) }],
  exports: [SecretBox],
})
export class EncryptionModule {}
