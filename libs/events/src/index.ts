export * from './change-message.types';
export * from './resilience-status.types';
export * from './route-operations.types';
export * from './log-line.types';
export * from './gateway-event.types';
export * from './message-bus';
export * from './in-process-bus';
export * from './api-key-digest';
