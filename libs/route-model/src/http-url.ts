export type HttpUrlProblem = 'invalid' | 'query' | 'credentials';

/**
 * Decision 8: an absolute http or https URL with a host. Also refused, because the data plane would
 * silently drop them: a query or fragment (only the URL's path takes part in the rewrite), and
 * user:password (secrets never live in route config).
 */
export function checkHttpUrl(value: string): HttpUrlProblem | undefined {
  // `new URL` quietly strips tabs/newlines and trims spaces; a value that needs that is not a URL.
  for (let i = 0; i < value.length; i += 1) if (value.charCodeAt(i) <= 32 || value.charCodeAt(i) === 127) return 'invalid';
  // `new URL('http:host')` is accepted by WHATWG parsing; a config value must spell the authority out.
  if (!/^https?:\/\//i.test(value)) return 'invalid';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'invalid';
  }
  if (url.hostname === '') return 'invalid';
  if (url.username !== '' || url.password !== '') return 'credentials';
  if (value.includes('?') || value.includes('#')) return 'query';
  return undefined;
}

/** The FieldError message for a problem, "Invalid URL" first as spec 7.2 words it. */
export function httpUrlMessage(problem: HttpUrlProblem): string {
  switch (problem) {
    case 'invalid':
      return 'Invalid URL';
    case 'query':
      return 'Invalid URL (an upstream URL carries no query or fragment)';
    case 'credentials':
      return 'Invalid URL (credentials do not belong in the URL)';
  }
}
