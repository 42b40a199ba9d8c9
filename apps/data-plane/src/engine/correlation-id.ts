// Decision 17's rule lives in @gateway/correlation-id so the control plane answers with the same ids.
export { generateCorrelationId, isAcceptableCorrelationId } from '@gateway/correlation-id';
