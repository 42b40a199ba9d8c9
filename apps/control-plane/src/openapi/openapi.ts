import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject, type OperationObject, type ResponseObject } from '@nestjs/swagger';
import { OPENAPI_PUBLIC, OPENAPI_ROLES } from '../auth/auth.decorators';
import { ERROR_ENVELOPE_NAME, SHARED_SCHEMAS } from './openapi-schemas';

export const OPENAPI_UI_PATH = 'api/docs';
export const OPENAPI_JSON_PATH = 'api/docs-json';
export const BEARER_SCHEME = 'bearer';
/** The admin UI's browser session (docs/admin-ui.md): the same token in an HttpOnly cookie. */
export const SESSION_COOKIE_SCHEME = 'sessionCookie';

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const UNSAFE_METHODS: ReadonlySet<string> = new Set(['post', 'put', 'patch', 'delete']);
const ERROR_CONTENT = { 'application/json': { schema: { $ref: `#/components/schemas/${ERROR_ENVELOPE_NAME}` } } };

/** The OpenAPI 3 document of the whole management API, built from the controllers' decorators. */
export function buildOpenApiDocument(app: INestApplication, version: string): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Gateway management API')
    .setDescription(
      'Every response uses the envelope {success, data} / {success:false, error, code, details?}; lists add ' +
        'pagination {total, limit, offset, hasMore}. Tokens come from POST /api/auth/login. Limits: see docs/auth-and-limits.md.',
    )
    .setVersion(version)
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, BEARER_SCHEME)
    .addCookieAuth(
      'gateway_session',
      {
        type: 'apiKey',
        in: 'cookie',
        description:
          'Set by POST /api/auth/login with session: "cookie". POST, PUT, PATCH and DELETE authenticated by it must echo the gateway_csrf cookie in X-CSRF-Token (403 CSRF_TOKEN_INVALID otherwise).',
      },
      SESSION_COOKIE_SCHEME,
    )
    .build();
  return applyAccessRules(SwaggerModule.createDocument(app, config));
}

/**
 * Deny by default (spec 5.1) in the document too: every operation needs the bearer token or the
 * session cookie unless its handler is @Public(), and @Roles() adds the 403; a state-changing one
 * also documents the CSRF 403 of cookie sessions. Both come from the decorators the guards
 * read (auth.decorators.ts), so a new endpoint is documented as the guards treat it. Every /api
 * operation can be throttled (decision 21), and its errors carry the error envelope.
 */
function applyAccessRules(document: OpenAPIObject): OpenAPIObject {
  document.components = { ...document.components, schemas: { ...document.components?.schemas, ...SHARED_SCHEMAS } };
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (operation !== undefined) applyToOperation(path, method, operation);
    }
  }
  return document;
}

function applyToOperation(path: string, method: (typeof HTTP_METHODS)[number], operation: OperationObject): void {
  const extensions = operation as OperationObject & Record<string, unknown>;
  const isPublic = extensions[OPENAPI_PUBLIC] === true;
  const roles = extensions[OPENAPI_ROLES] as string[] | undefined;
  delete extensions[OPENAPI_PUBLIC];
  delete extensions[OPENAPI_ROLES];
  const responses = operation.responses;
  const add = (status: string, description: string): void => {
    responses[status] ??= { description };
  };
  if (isPublic) {
    delete operation.security;
  } else {
    operation.security = [{ [BEARER_SCHEME]: [] }, { [SESSION_COOKIE_SCHEME]: [] }];
    add('401', 'UNAUTHORIZED: "Unauthorized" (no, bad, expired or revoked token)');
    const forbidden: string[] = [];
    if (roles !== undefined && roles.length > 0) forbidden.push(`FORBIDDEN: "Forbidden" (needs the ${roles.join(' or ')} role)`);
    if (UNSAFE_METHODS.has(method)) forbidden.push('CSRF_TOKEN_INVALID (session cookie without X-CSRF-Token)');
    if (forbidden.length > 0) add('403', forbidden.join('; '));
  }
  if (path === '/api' || path.startsWith('/api/')) {
    add('429', 'RATE_LIMITED: a decision 21 tier is exceeded (Retry-After and X-RateLimit-* headers)');
    for (const [status, response] of Object.entries(responses)) {
      const described = response as ResponseObject;
      if (Number(status) >= 400 && described.content === undefined) described.content = ERROR_CONTENT;
    }
  }
}

/**
 * Serves the UI at /api/docs and the JSON at /api/docs-json. Registered on the HTTP adapter before
 * app.init(), so these (public) paths are matched before the API's guarded catch-all.
 */
export function setupOpenApi(app: INestApplication, version: string): void {
  SwaggerModule.setup(OPENAPI_UI_PATH, app, () => buildOpenApiDocument(app, version), {
    jsonDocumentUrl: OPENAPI_JSON_PATH,
    yamlDocumentUrl: 'api/docs-yaml',
    useGlobalPrefix: false,
  });
}
