export {
  parseProxyConfigText,
  readProxyConfigFile,
  readProxySettingsFile,
  type ConfigFileError,
  type ConfigFileResult,
} from './proxy-config-file';
export { certificatesProblem, MAX_CA_BUNDLE_BYTES, readCaBundle, type CaBundle, type CaBundleLoad } from './ca-bundle-file';
export {
  absolutePathProblem,
  CA_DIRS_VARIABLE,
  caFileLocationProblem,
  caFilePathProblem,
  DEFAULT_CA_DIRS,
  parseCaDirs,
} from './ca-file-rule';
