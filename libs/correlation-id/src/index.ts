export { generateCorrelationId, isAcceptableCorrelationId, randomHex } from './correlation-id';
