import { type AccountContext } from '@fed/identity/internal';
import { type FormProblem } from './account-rules';

export interface Requester {
  address: string;
  context: AccountContext;
}

/** `sent` for known and unknown addresses alike, so no page enumerates accounts. */
export type MailFormOutcome =
  | { kind: 'sent'; email: string }
  | { kind: 'refused'; problems: FormProblem[] }
  | { kind: 'throttled'; retryAfterSeconds: number };

export type UnusableLink = { kind: 'unusable'; reason: 'used' | 'expired' | 'unknown' };
