import { validateProxyConfig, type ProxyConfig } from '@gateway/route-model';
import type { Logger } from '../engine/ports';

/** One line a test's logger was given. */
export interface RecordedLine {
  level: string;
  fields: Record<string, unknown>;
  message: string;
}

/** A logger that keeps what it is given, so a test can check what was logged and at which level. */
export function recordingLogger(): Logger & { lines: RecordedLine[] } {
  const lines: RecordedLine[] = [];
  const at = (level: string) => (fields: Record<string, unknown>, message: string) => void lines.push({ level, fields, message });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** A proxy.yml document (version added) validated as a data plane would; a test's bad fixture throws with the errors. */
export function validConfig(input: Record<string, unknown>): ProxyConfig {
  const result = validateProxyConfig({ version: '1.0.0', ...input });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.value;
}
