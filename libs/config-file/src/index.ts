export { parseProxyConfigText, readProxyConfigFile, type ConfigFileError, type ConfigFileResult } from './proxy-config-file';
