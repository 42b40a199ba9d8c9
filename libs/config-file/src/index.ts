export {
  parseProxyConfigText,
  readProxyConfigFile,
  readProxySettingsFile,
  type ConfigFileError,
  type ConfigFileResult,
} from './proxy-config-file';
