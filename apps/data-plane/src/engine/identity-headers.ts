/**
 * Headers through which gateway authentication tells the upstream who the caller is
 * (docs/edge-policies.md). Reserved: a client's copy is removed from every upstream request, on
 * every route, so an upstream can trust them whenever they are present.
 */
export const IDENTITY_HEADERS = {
  scheme: 'x-gateway-auth',
  userId: 'x-gateway-user-id',
  userEmail: 'x-gateway-user-email',
  userRole: 'x-gateway-user-role',
  keyId: 'x-gateway-key-id',
} as const;

export const IDENTITY_HEADER_NAMES: readonly string[] = Object.values(IDENTITY_HEADERS);
