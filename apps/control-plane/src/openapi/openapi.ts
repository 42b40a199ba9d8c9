import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';

export const OPENAPI_UI_PATH = 'api/docs';
export const OPENAPI_JSON_PATH = 'api/docs-json';

/** The OpenAPI 3 document of the whole management API, built from the controllers' decorators. */
export function buildOpenApiDocument(app: INestApplication, version: string): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Gateway management API')
    .setDescription(
      'Every response uses the envelope {success, data} / {success:false, error, code, details?}; lists add ' +
        'pagination {total, limit, offset, hasMore}. Tokens come from POST /api/auth/login. Limits: see docs/auth-and-limits.md.',
    )
    .setVersion(version)
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' })
    .build();
  return SwaggerModule.createDocument(app, config);
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
