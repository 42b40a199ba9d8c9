/**
 * The built index.html with a `<base href>` for one request. The build's URLs are relative
 * (Vite `base: './'`); a deep link such as `/admin/routes/abc` needs `../` to reach `/admin/`. The
 * base is relative too, so the same answer works when a proxy serves the gateway under a prefix
 * (`/gw/admin/routes/abc` finds `/gw/admin/assets/...`) with no setting to keep in step.
 */
export function indexForPath(indexHtml: string, pathBelowAdmin: string): string {
  const depth = pathBelowAdmin.replace(/^\/+/, '').split('/').length - 1;
  const base = depth === 0 ? './' : '../'.repeat(depth);
  return indexHtml.replace(/<head>/i, `<head>\n    <base href="${base}" />`);
}
