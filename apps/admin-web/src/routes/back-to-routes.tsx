import { appBase } from '../api/api-client';

/** The way back to the list from a page about one route or the trash. */
export function BackToRoutes() {
  return (
    <p>
      <a href={`${appBase.pathname}routes`}>Back to routes</a>
    </p>
  );
}
