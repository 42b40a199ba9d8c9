/**
 * Why an upstream exchange failed, as a stable code (undici's `UND_ERR_*` shape). The caller maps
 * every code to its own catalogue (the gateway: 502, or 504 for the timeouts); the message is for
 * logs only and never reaches a client.
 */
export type UpstreamClientErrorCode =
  /** The response broke HTTP/1.1 (RFC 9112) or a limit; `detail` names what. */
  | 'UPSTREAM_PROTOCOL'
  /** The upstream closed the connection before the response was complete. */
  | 'UPSTREAM_CLOSED_EARLY'
  /** A socket or TLS error (refused, reset, certificate). */
  | 'UPSTREAM_SOCKET'
  | 'UPSTREAM_CONNECT_TIMEOUT'
  | 'UPSTREAM_FIRST_BYTE_TIMEOUT'
  | 'UPSTREAM_IDLE_TIMEOUT'
  /** The caller aborted the exchange. */
  | 'UPSTREAM_ABORTED'
  /** The request itself was unusable (a header with CR/LF, a body longer than declared...). */
  | 'UPSTREAM_INVALID_REQUEST'
  /** The pool was closed. */
  | 'UPSTREAM_POOL_CLOSED'
  /** The pool refuses to connect: its TLS settings could not be loaded (`detail` says which file and why). */
  | 'UPSTREAM_REFUSED';

export class UpstreamClientError extends Error {
  /**
   * True when the exchange ran on a pooled connection and failed before any response byte: the
   * upstream may have closed an idle connection as we reused it, so a replayable request is safe
   * to retry on a new one (node's `req.reusedSocket`).
   */
  reusedConnection = false;

  constructor(
    readonly code: UpstreamClientErrorCode,
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(`${code}: ${detail}`, options);
    this.name = 'UpstreamClientError';
  }
}

/** A response that breaks the protocol; `detail` names the part (for logs and the parser tests). */
export const protocolError = (detail: string): UpstreamClientError => new UpstreamClientError('UPSTREAM_PROTOCOL', detail);
