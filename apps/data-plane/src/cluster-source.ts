/**
 * Public entry for composing a data plane that follows a control plane (the CLI's
 * `--role data-plane`): the HTTP snapshot fetcher and the follower's timing.
 */
export { createHttpSnapshotFetcher, SnapshotFetchError, SNAPSHOT_PATH, type HttpSnapshotFetcherOptions } from './cluster/http-snapshot-fetcher';
export { FOLLOWER_TIMING, type FollowerTiming } from './cluster/control-plane-follower';
