// The shapes of the REST API the UI reads, all taken from the types openapi-typescript generates
// (in the build) from apps/control-plane/openapi.json, the document a running control plane
// serves. An API change that breaks the UI therefore breaks `npm run build`.
import type { Route as ModelRoute } from '@gateway/route-model';
import type { components, paths } from './openapi.generated';

type Operation<P extends keyof paths, M extends keyof paths[P]> = NonNullable<paths[P][M]>;
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;
/** The JSON body an operation answers with a status. */
export type AnswerOf<P extends keyof paths, M extends keyof paths[P], S extends number> =
  Operation<P, M> extends { responses: infer Rs } ? (S extends keyof Rs ? JsonOf<Rs[S]> : never) : never;
/** The `data` of a success envelope. */
export type DataOf<P extends keyof paths, M extends keyof paths[P], S extends number = 200> = AnswerOf<P, M, S> extends { data: infer D } ? D : never;
/** The query parameters an operation declares. */
export type QueryOf<P extends keyof paths, M extends keyof paths[P]> = Operation<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
/** The JSON body an operation takes. */
export type BodyOf<P extends keyof paths, M extends keyof paths[P]> = Operation<P, M> extends { requestBody?: infer B } ? JsonOf<NonNullable<B>> : never;

/** The canonical route as the API answers it (the route model's JSON Schema). */
export type Route = components['schemas']['Route'];
/** A POST / PUT body: the same fields, only path and upstream required. */
export type RouteInput = components['schemas']['RouteInput'];

/**
 * What the API documents as a route is a route of the model: the editor hands an answer to the
 * model's validator (validateRoute / normalizeRoute). Fails the type check when they part.
 */
type Agrees<A, B> = [A] extends [B] ? true : false;
export const ROUTE_TYPES_AGREE: Agrees<Route, ModelRoute & { deletedAt?: string }> = true;

export type SessionCheck = DataOf<'/api/auth/session', 'get'>;
export type SessionUser = SessionCheck['user'];
export type UserRole = SessionUser['role'];

export type Pagination = AnswerOf<'/api/routes', 'get', 200>['pagination'];
export type RouteListQuery = QueryOf<'/api/routes', 'get'>;

export interface RoutePage {
  routes: Route[];
  pagination: Pagination;
}

export type ErrorBody = components['schemas']['ErrorEnvelope'];
export type FieldError = NonNullable<NonNullable<ErrorBody['details']>['fields']>[number];

export type BreakerStatus = DataOf<'/api/routes/{id}/circuit-breaker', 'get'>;
export type RouteHealth = DataOf<'/api/routes/{id}/health', 'get'>;
export type RateLimitUsage = DataOf<'/api/routes/{id}/rate-limit', 'get'>;
export type ProbeRequest = BodyOf<'/api/routes/{id}/test', 'post'>;
export type ProbeAnswer = DataOf<'/api/routes/{id}/test', 'post'>;

/**
 * What the UI reads of one `second` event of GET /api/monitoring/stream (Server-Sent Events; the
 * document describes the stream as text, so this names the part used, with the document's enums).
 */
export interface MonitoringSecond {
  start: number;
  routes: Array<{ routeId: string; breaker?: NonNullable<BreakerStatus['state']>; health?: NonNullable<RouteHealth['status']> }>;
}
