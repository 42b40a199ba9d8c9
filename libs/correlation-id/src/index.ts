export { generateCorrelationId, isAcceptableCorrelationId } from './correlation-id';
