import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger';
import { Fails, NoContent, Ok, OkList, schemaRef, UPSTREAM_INPUT_SCHEMA_NAME, UPSTREAM_SCHEMA_NAME } from '../openapi/openapi-schemas';

/**
 * OpenAPI descriptions of the upstreams endpoints. Documentation only: bodies are validated by
 * libs/route-model `normalizeUpstream`, never by these schemas (docs/upstreams.md, section API).
 */

const UPSTREAM = schemaRef(UPSTREAM_SCHEMA_NAME);
const UPSTREAM_BODY = schemaRef(UPSTREAM_INPUT_SCHEMA_NAME);
const UPSTREAM_PATCH: SchemaObject = {
  type: 'object',
  description: 'A JSON merge patch (RFC 7396) over the stored upstream: objects merge, arrays (targets) and scalars replace, null resets a field; url replaces targets',
  additionalProperties: true,
};

const NAME = ApiParam({ name: 'name', description: 'Upstream name (what routes name in upstream)' });
const NOT_FOUND = Fails(404, 'UPSTREAM_NOT_FOUND: "Upstream not found"');
const READ_ONLY = Fails(422, 'READ_ONLY_UPSTREAM: upstreams from proxy.yml change only through the file');
const INVALID = Fails(
  400,
  'VALIDATION_ERROR / INVALID_URL: details.fields lists every failing field (targets[1].url, balancing.hashKey, tls.caFile outside GATEWAY_CA_DIRS or not a PEM bundle of certificates, ...)',
);

export const UpstreamDocs = {
  list: () => applyDecorators(ApiOperation({ summary: 'List upstreams (proxy.yml and API), ordered by name, paginated' }), OkList(UPSTREAM), Fails(400, 'VALIDATION_ERROR: a bad or unknown query parameter')),
  create: () =>
    applyDecorators(
      ApiOperation({ summary: 'Create an upstream' }),
      ApiBody({ schema: UPSTREAM_BODY }),
      Ok(201, UPSTREAM),
      INVALID,
      Fails(409, 'CONFLICT: "Upstream name already exists" (an API or proxy.yml upstream has the name)'),
    ),
  get: () => applyDecorators(ApiOperation({ summary: 'One upstream' }), NAME, Ok(200, UPSTREAM), NOT_FOUND),
  replace: () =>
    applyDecorators(ApiOperation({ summary: 'Replace an upstream (omitted fields return to their defaults); routes naming it follow without a change' }), NAME, ApiBody({ schema: UPSTREAM_BODY }), Ok(200, UPSTREAM), INVALID, NOT_FOUND, READ_ONLY),
  patch: () => applyDecorators(ApiOperation({ summary: 'Change some fields (JSON merge patch)' }), NAME, ApiBody({ schema: UPSTREAM_PATCH }), Ok(200, UPSTREAM), INVALID, NOT_FOUND, READ_ONLY),
  remove: () =>
    applyDecorators(
      ApiOperation({ summary: 'Delete an upstream no route names' }),
      NAME,
      NoContent('Deleted'),
      NOT_FOUND,
      Fails(409, 'UPSTREAM_IN_USE: routes (soft-deleted ones included) still name it; details.routes lists their ids'),
      READ_ONLY,
    ),
};
