/**
 * Whether an Accept-Encoding value allows gzip (RFC 9110 12.5.3): `gzip` or `*` with a q-value
 * above 0. Prometheus sends `gzip`; an absent header or `identity` means plain text.
 */
export function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined || header === '') return false;
  let gzip: boolean | undefined;
  let any: boolean | undefined;
  for (const entry of header.split(',')) {
    const [coding = '', ...params] = entry.split(';');
    const name = coding.trim().toLowerCase();
    if (name !== 'gzip' && name !== 'x-gzip' && name !== '*') continue;
    const allowed = qualityOf(params) > 0;
    if (name === '*') any = allowed;
    else gzip = allowed;
  }
  return gzip ?? any ?? false;
}

/** The q parameter among `params` (1 when absent; 0 when unreadable, so a garbled value never turns gzip on). */
function qualityOf(params: readonly string[]): number {
  for (const param of params) {
    const [key = '', value = ''] = param.split('=');
    if (key.trim().toLowerCase() !== 'q') continue;
    const q = Number(value.trim());
    return /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.test(value.trim()) && Number.isFinite(q) ? q : 0;
  }
  return 1;
}
