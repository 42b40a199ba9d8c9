/**
 * The gateway's own secrets. A route's `auth.jwt.secretEnv` may not name one: with `JWT_SECRET` a
 * management session token would open the route and a token minted for the route would be a
 * management session (the two would vouch for each other); the others would turn a route into an
 * oracle for a secret that guards something else.
 */
export const MANAGEMENT_SECRET_VARIABLES: readonly string[] = Object.freeze([
  'JWT_SECRET',
  'API_KEY_SECRET',
  'CLUSTER_TOKEN',
  'CLUSTER_TOKEN_PREVIOUS',
  'ADMIN_PASSWORD',
]);

/**
 * Compared without case: on Windows the environment is case-insensitive, and on Linux a
 * `jwt_secret` beside `JWT_SECRET` is a mistake waiting to happen.
 */
export function isManagementSecretVariable(name: string): boolean {
  const upper = name.toUpperCase();
  return MANAGEMENT_SECRET_VARIABLES.includes(upper);
}
