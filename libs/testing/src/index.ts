export * from './loopback-upstream';
export * from './http-client';
export * from './temp-dir';
export * from './self-signed-cert';
export * from './gateway-process';
export * from './unresponsive-listener';
export * from './postgres-database';
