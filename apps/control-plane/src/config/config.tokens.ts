/** Injection tokens for values built before Nest starts (start.ts). */
export const CONTROL_PLANE_CONFIG = Symbol('CONTROL_PLANE_CONFIG');
export const MESSAGE_BUS = Symbol('MESSAGE_BUS');
