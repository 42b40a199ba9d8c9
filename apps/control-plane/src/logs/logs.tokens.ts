/** The LogRingBuffer the logger of this control plane writes to. */
export const LOG_BUFFER = Symbol('LOG_BUFFER');
