import { SamlStatusError } from '@node-saml/passport-saml';

/**
 * node-saml's error as a short reason for the audit log. Its messages can quote parts of the
 * response; only these fixed phrases are recorded, never the assertion.
 */
export function refusalReason(error: unknown): string {
  if (error instanceof SamlStatusError) return 'status is not Success';
  const message = error instanceof Error ? error.message : '';
  const rules: Array<[RegExp, string]> = [
    [/multiple assertions/i, 'more than one assertion'],
    [/InResponseTo/i, 'InResponseTo missing, unknown or already used'],
    [/signature|signed/i, 'signature missing or invalid'],
    [/not yet valid/i, 'assertion not yet valid'],
    // node-saml drops subject confirmations only for their times: here, all of them were expired.
    [/expired|too old|No valid subject confirmation/i, 'assertion expired'],
    [/audience/i, 'wrong audience'],
    [/issuer/i, 'wrong Issuer'],
    [/status/i, 'status is not Success'],
    [/assertion/i, 'assertion missing or malformed'],
  ];
  return rules.find(([pattern]) => pattern.test(message))?.[1] ?? 'response malformed';
}
