import { isPrintableLine } from '@fed/contracts';
import { checkPassword, UsersError, validateUserFields } from '@fed/identity/internal';
import { type StrengthProblem, passwordStrength, personalWords } from './password-strength';

export type FormProblem =
  | { field: 'email'; problem: 'invalid_email' | 'organization_domain' }
  | { field: 'username'; problem: 'invalid_username' | 'username_taken' }
  | { field: 'password'; problem: 'password_rules' }
  | { field: 'password'; problem: 'password_weak'; strength?: StrengthProblem };

// Stricter than the users service's (3+ characters, no '@'), so the login form can never read a username as an address.
const SIGN_UP_USERNAME = /^[a-z0-9][a-z0-9._-]{2,63}$/;

export function normalizedEmail(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > 254 || !isPrintableLine(value)) return undefined;
  try {
    return validateUserFields({ email: value, displayName: 'x' }).email;
  } catch (error) {
    if (error instanceof UsersError) return undefined;
    throw error;
  }
}

export function normalizedUsername(value: unknown): string | undefined {
  const username = typeof value === 'string' ? value.trim().toLowerCase() : '';
  return SIGN_UP_USERNAME.test(username) ? username : undefined;
}

/** zxcvbn's check runs against the account's own words. */
export async function passwordProblem(
  password: string,
  email: string,
  username: string,
): Promise<FormProblem | undefined> {
  try {
    checkPassword(password);
  } catch (error) {
    if (error instanceof UsersError) return { field: 'password', problem: 'password_rules' };
    throw error;
  }
  const verdict = await passwordStrength(password, personalWords(email, username));
  return verdict.strong ? undefined : { field: 'password', problem: 'password_weak', strength: verdict.problem };
}
