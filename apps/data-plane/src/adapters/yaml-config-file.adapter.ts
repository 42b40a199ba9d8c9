// proxy.yml reading (YAML with line numbers + route-model validation) lives in @gateway/config-file,
// shared with the control plane's reconciliation so both read the file identically.
export {
  parseProxyConfigText,
  readProxyConfigFile,
  readProxySettingsFile,
  type ConfigFileError,
  type ConfigFileResult,
} from '@gateway/config-file';
