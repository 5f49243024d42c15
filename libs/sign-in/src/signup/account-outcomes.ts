import { type AccountContext } from '@fed/identity/internal';
import { type FormProblem } from './account-rules';

/** Who asks: the client's address (for the rate limit) and the page's context (for the e-mail's link). */
export interface Requester {
  address: string;
  context: AccountContext;
}

/**
 * The answer to a form that may send an e-mail. `sent` is the answer for known and unknown addresses
 * alike (whether an e-mail actually left is never told), so no page enumerates accounts.
 */
export type MailFormOutcome =
  | { kind: 'sent'; email: string }
  | { kind: 'refused'; problems: FormProblem[] }
  | { kind: 'throttled'; retryAfterSeconds: number };

/** Why a link's token cannot be used. */
export type UnusableLink = { kind: 'unusable'; reason: 'used' | 'expired' | 'unknown' };
