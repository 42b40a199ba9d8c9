/**
 * The password rules for accounts created through the API (docs/auth-and-limits.md). Length is
 * what NIST SP 800-63B and OWASP ASVS 2.1 ask for; composition rules are deliberately absent.
 */
export const PASSWORD_MIN_LENGTH = 12;
/** scrypt hashes any length, but a bound keeps one request from costing unbounded CPU. */
export const PASSWORD_MAX_LENGTH = 128;

/** The first rule the password breaks, as a message naming it; undefined when it passes. */
export function passwordPolicyViolation(password: string, email: string): string | undefined {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return `password must be at least ${PASSWORD_MIN_LENGTH} characters`;
  if (length > PASSWORD_MAX_LENGTH) return `password must be at most ${PASSWORD_MAX_LENGTH} characters`;
  const lower = password.toLowerCase();
  const normalizedEmail = email.trim().toLowerCase();
  const localPart = normalizedEmail.split('@')[0] ?? '';
  if (lower.includes(normalizedEmail) || (localPart.length >= 4 && lower.includes(localPart))) {
    return 'password must not contain the email address';
  }
  if (new Set(lower).size < 4) return 'password must contain at least 4 different characters';
  return undefined;
}
