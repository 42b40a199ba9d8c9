// Decision 17's rule lives in @gateway/correlation-id so the control plane answers with the same ids.
import { generateCorrelationId as generate, isAcceptableCorrelationId as isAcceptable } from '@gateway/correlation-id';

// Plain constants, not `export { ... } from`: TypeScript's CommonJS output re-exports through a
// getter (two, with the library's index), and the correlation-id hook's optimised code called
// both through V8's generic load on every request (~0.5k instructions under callgrind,
// docs/data-plane.md, branch h-book100).
export const generateCorrelationId: typeof generate = generate;
export const isAcceptableCorrelationId: typeof isAcceptable = isAcceptable;
