import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { ADMIN_UI_CSP, IMMUTABLE_ASSET_CACHE, INDEX_CACHE } from './admin-ui-headers';
import { indexForPath } from './admin-ui-index';

/**
 * Where the workspace build leaves apps/admin-web's output, beside this app in the repository
 * (this file runs from apps/control-plane/dist/admin-ui). A path, not a package import: the
 * control plane serves the UI's files and never loads its code.
 */
export function builtAdminUiDirectory(): string {
  return path.resolve(__dirname, '..', '..', '..', 'admin-web', 'dist');
}

function setCommonHeaders(res: Response): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'same-origin');
}

/**
 * The admin UI at `/admin` (mount the router there): hashed assets under `/admin/assets/`, cached
 * for good; every other GET is a deep link answered with the index, which the app's router reads.
 * Without a build (`npm run build` not run) `/admin` says so with 503 instead of a bare 404.
 */
export function adminUiRouter(directory: string): Router {
  const router = express.Router({ strict: true });
  const indexPath = path.join(directory, 'index.html');
  const indexHtml = existsSync(indexPath) ? readFileSync(indexPath, 'utf8') : undefined;
  router.use((req: Request, res: Response, next: NextFunction) => {
    if (req.method === 'GET' || req.method === 'HEAD') {
      setCommonHeaders(res);
      next();
      return;
    }
    res.setHeader('Allow', 'GET, HEAD');
    res.status(405).type('text/plain').send('Method Not Allowed');
  });
  if (indexHtml !== undefined) {
    router.use(
      '/assets',
      express.static(path.join(directory, 'assets'), {
        index: false,
        dotfiles: 'ignore',
        fallthrough: false,
        setHeaders: (res) => res.setHeader('Cache-Control', IMMUTABLE_ASSET_CACHE),
      }),
    );
  }
  router.use((req: Request, res: Response) => {
    // `/admin` without its slash: relative asset URLs need the directory form.
    if (req.originalUrl === '/admin' || req.originalUrl.startsWith('/admin?')) {
      res.redirect(301, `admin/${req.originalUrl.slice('/admin'.length)}`);
      return;
    }
    if (indexHtml === undefined) {
      res.status(503).setHeader('Cache-Control', 'no-store').type('text/plain').send('The admin UI is not built: run npm run build');
      return;
    }
    res.setHeader('Cache-Control', INDEX_CACHE);
    res.setHeader('Content-Security-Policy', ADMIN_UI_CSP);
    res.setHeader('X-Frame-Options', 'DENY');
    res.type('html').send(indexForPath(indexHtml, req.path));
  });
  return router;
}
