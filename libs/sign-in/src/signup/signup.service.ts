import { Injectable } from '@nestjs/common';
import {
  AccountTokenRepository,
  type AccountTokenState,
  UserNotifications,
  UsersError,
  UsersService,
} from '@fed/identity/internal';
import { AccountMailThrottle } from './account-mail-throttle';
import { type MailFormOutcome, type Requester, type UnusableLink } from './account-outcomes';
import { AccountRepository } from './account.repository';
import { type FormProblem, normalizedEmail, normalizedUsername, passwordProblem } from './account-rules';

export interface SignUpForm {
  email: unknown;
  username: unknown;
  password: unknown;
}

/**
 * `unverified` until the e-mailed link is followed, then `pending` until approved. The answer and the work are
 * the same whether or not the address has an account (password hashed, one e-mail queued either way).
 */
@Injectable()
export class SignUpService {
  constructor(
    private readonly users: UsersService,
    private readonly accounts: AccountRepository,
    private readonly tokens: AccountTokenRepository,
    private readonly throttle: AccountMailThrottle,
    private readonly notifications: UserNotifications,
  ) {}

  async signUp(form: SignUpForm, from: Requester): Promise<MailFormOutcome> {
    const email = normalizedEmail(form.email);
    const username = normalizedUsername(form.username);
    const password = typeof form.password === 'string' ? form.password : '';
    const problems: FormProblem[] = [
      ...(email ? [] : [{ field: 'email', problem: 'invalid_email' } as const]),
      ...(username ? [] : [{ field: 'username', problem: 'invalid_username' } as const]),
      ...[await passwordProblem(password, email ?? '', username ?? '')].filter((problem) => problem !== undefined),
    ];
    if (!email || !username || problems.length > 0) return { kind: 'refused', problems };
    // The address belongs to its organization's provider: an account here would keep its owner from signing in there.
    if (await this.accounts.organizationDomain(email.slice(email.lastIndexOf('@') + 1))) {
      return { kind: 'refused', problems: [{ field: 'email', problem: 'organization_domain' }] };
    }

    const decision = await this.throttle.attempt(email, from.address);
    if (!decision.allowed) return { kind: 'throttled', retryAfterSeconds: decision.retryAfterSeconds };
    // Usernames are checked before addresses and whoever holds them: "taken" says nothing of the address.
    if (!(await this.throttle.holdUsername(username)) || (await this.accounts.loginTaken(username))) {
      return usernameTaken();
    }
    try {
      const { user } = await this.users.create({
        email,
        username,
        displayName: username,
        password,
        status: 'unverified',
      });
      await this.notifications.accountMail('email_verification', user.id, from.context);
    } catch (error) {
      if (!(error instanceof UsersError && error.code === 'user_exists')) throw error;
      const owner = await this.accounts.byEmail(email);
      // No owner of the address: the username was taken in the meantime.
      if (!owner) return usernameTaken();
      if (owner.hasPassword) await this.notifications.accountMail('account_exists', owner.id, from.context);
    }
    return { kind: 'sent', email };
  }

  /** Only while the account is still `unverified`. */
  async resend(form: { email: unknown }, from: Requester): Promise<MailFormOutcome> {
    const email = normalizedEmail(form.email);
    if (!email) return { kind: 'refused', problems: [{ field: 'email', problem: 'invalid_email' }] };
    const decision = await this.throttle.attempt(email, from.address);
    if (!decision.allowed) return { kind: 'throttled', retryAfterSeconds: decision.retryAfterSeconds };
    const owner = await this.accounts.byEmail(email);
    if (owner?.status === 'unverified') {
      await this.notifications.accountMail('email_verification', owner.id, from.context);
    }
    return { kind: 'sent', email };
  }

  linkState(token: string): Promise<AccountTokenState> {
    return this.tokens.state(token, 'email_verification');
  }

  /** Of two concurrent uses, exactly one confirms. */
  async verify(token: string): Promise<{ kind: 'verified' } | UnusableLink> {
    if (await this.tokens.verifyEmail(token)) return { kind: 'verified' };
    const state = await this.tokens.state(token, 'email_verification');
    return { kind: 'unusable', reason: state.usable ? 'used' : state.reason };
  }
}

function usernameTaken(): MailFormOutcome {
  return { kind: 'refused', problems: [{ field: 'username', problem: 'username_taken' }] };
}
