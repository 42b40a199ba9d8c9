/**
 * Spec 9.1: the management API and the `proxy.yml` schema are versioned separately; both are
 * sent on every response (X-API-Version, X-Config-Version) and by `GET /version`.
 * A breaking change raises the major number, a feature the minor, a fix the patch.
 */
export const API_VERSION = '1.0.0';

/** The `proxy.yml` schema version; a config file whose `version` has another major is refused. */
export const CONFIG_SCHEMA_VERSION = '1.0.0';
