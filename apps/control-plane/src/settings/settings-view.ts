import type { SettingsDocument } from './settings-section';

/** What `GET /api/settings` answers: the document (secrets masked) and its version. */
export interface SettingsView {
  version: number;
  /** null while nothing was ever saved (version 0, the defaults). */
  changedAt: string | null;
  actor: string | null;
  settings: SettingsDocument;
}
