export * from './change-message.types';
export * from './message-bus';
export * from './in-process-bus';
export * from './api-key-digest';
