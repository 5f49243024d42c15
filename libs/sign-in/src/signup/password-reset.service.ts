import { Inject, Injectable } from '@nestjs/common';
import {
  AccountTokenRepository,
  type AccountTokenState,
  hashPassword,
  type SessionInvalidations,
  UserNotifications,
} from '@fed/identity/internal';
import { AccountMailThrottle } from './account-mail-throttle';
import { type MailFormOutcome, type Requester, type UnusableLink } from './account-outcomes';
import { AccountRepository } from './account.repository';
import { type FormProblem, normalizedEmail, passwordProblem } from './account-rules';

export const ACCOUNT_SESSION_INVALIDATIONS = Symbol.for('fed.identity.AccountSessionInvalidations');

export type ResetOutcome = { kind: 'reset' } | { kind: 'refused'; problems: FormProblem[] } | UnusableLink;

/**
 * Asking answers the same for every address. Using a link ends every session: refresh families and provider
 * sessions in the same statement, issued access tokens via the retained `auth.sessions-invalidated` signal.
 */
@Injectable()
export class PasswordResetService {
  constructor(
    private readonly accounts: AccountRepository,
    private readonly tokens: AccountTokenRepository,
    private readonly throttle: AccountMailThrottle,
    private readonly notifications: UserNotifications,
    @Inject(ACCOUNT_SESSION_INVALIDATIONS) private readonly invalidations: SessionInvalidations,
  ) {}

  async requestLink(form: { email: unknown }, from: Requester): Promise<MailFormOutcome> {
    const email = normalizedEmail(form.email);
    if (!email) return { kind: 'refused', problems: [{ field: 'email', problem: 'invalid_email' }] };
    const decision = await this.throttle.attempt(email, from.address);
    if (!decision.allowed) return { kind: 'throttled', retryAfterSeconds: decision.retryAfterSeconds };
    const owner = await this.accounts.byEmail(email);
    if (owner?.hasPassword) await this.notifications.accountMail('password_reset', owner.id, from.context);
    return { kind: 'sent', email };
  }

  linkState(token: string): Promise<AccountTokenState> {
    return this.tokens.state(token, 'password_reset');
  }

  async reset(token: string, password: unknown): Promise<ResetOutcome> {
    const state = await this.tokens.state(token, 'password_reset');
    if (!state.usable) return { kind: 'unusable', reason: state.reason };
    const owner = await this.accounts.byId(state.userId);
    if (!owner) return { kind: 'unusable', reason: 'unknown' };
    const newPassword = typeof password === 'string' ? password : '';
    const problem = await passwordProblem(newPassword, owner.email, owner.username);
    if (problem) return { kind: 'refused', problems: [problem] };

    const passwordHash = await hashPassword(newPassword);
    const at = new Date();
    const userId = await this.tokens.resetPassword(token, passwordHash, at);
    if (!userId) {
      const now = await this.tokens.state(token, 'password_reset');
      return { kind: 'unusable', reason: now.usable ? 'used' : now.reason };
    }
    await this.invalidations.invalidate(userId, at);
    return { kind: 'reset' };
  }
}
