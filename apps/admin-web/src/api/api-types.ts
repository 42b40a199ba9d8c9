// The shapes of the REST API (decision 1's envelopes) that the UI reads. Routes are the route
// model's own type: the API answers canonical routes (docs/routes-api.md).
import type { FieldError, Route } from '@gateway/route-model';

export type { Route, FieldError };

export type UserRole = 'admin' | 'user';

export interface SessionUser {
  id: string;
  email: string;
  role: UserRole;
}

export interface SessionCheck {
  valid: true;
  user: SessionUser;
  expiresAt: string;
}

export interface AuthMethods {
  password: true;
  sso: { enabled: boolean; initiateUrl?: string };
}

export interface Pagination {
  total: number;
  limit: number;
  offset: number;
  hasMore: boolean;
}

export interface RoutePage {
  routes: Route[];
  pagination: Pagination;
}

export interface RouteListQuery {
  limit: number;
  offset: number;
  search?: string;
  enabled?: boolean;
}

export interface ErrorBody {
  success: false;
  error: string;
  code: string;
  details?: { fields?: FieldError[] } & Record<string, unknown>;
}

/** GET/PUT /api/settings: the document by section, secrets shown as '********' (or null when unset). */
export type SettingsDocument = Record<string, Record<string, unknown>>;

export interface SettingsView {
  version: number;
  changedAt: string | null;
  actor: string | null;
  settings: SettingsDocument;
}
