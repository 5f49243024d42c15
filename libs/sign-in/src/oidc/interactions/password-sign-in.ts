import { Inject, Injectable } from '@nestjs/common';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { BruteForceProtection } from '../../brute-force/brute-force-protection';
import { DeviceCookies } from '../../brute-force/device-cookie';
import { type LoginAccount, type LoginSource, type LoginThrottle } from '../../brute-force/login-throttle';
import { type SignInEvents } from '../../brute-force/sign-in-events';
import { KeyEncryption, UsersService, type UserView } from '@fed/identity/internal';
import { INTERACTION_PATH } from '../oidc-provider.factory';

export type SignInOutcome =
  | { refused: true; retryAfterSeconds: number }
  /** `user` null: a wrong login or password. `deviceCookie`: the `Set-Cookie` value for a signed-in browser. */
  | { refused: false; user: UserView | null; deviceCookie?: string };

/** The user is looked up first (the throttle counts by account), and a signed-in browser gets a device cookie. */
@Injectable()
export class PasswordSignIn {
  private readonly throttle: LoginThrottle;
  private readonly events: SignInEvents;
  private readonly deviceCookies: DeviceCookies;

  constructor(
    private readonly users: UsersService,
    encryption: KeyEncryption,
    bruteForce: BruteForceProtection,
    @Inject(SERVICE_CONFIG) config: ServiceConfig,
  ) {
    this.throttle = bruteForce.loginThrottle();
    this.events = bruteForce.events;
    this.deviceCookies = new DeviceCookies({
      key: encryption.derive('device-cookie'),
      path: INTERACTION_PATH,
      secure: new URL(config.auth.issuer).protocol === 'https:',
    });
  }

  async attempt(
    login: string,
    password: string,
    from: { address: string; cookieHeader: string | undefined },
  ): Promise<SignInOutcome> {
    const candidate = await this.users.findForLogin(login);
    const account: LoginAccount = candidate ? { userId: candidate.id } : { unknownLogin: login };
    const deviceNonce = candidate ? this.deviceCookies.nonceFor(from.cookieHeader, candidate.id) : undefined;
    const source: LoginSource = deviceNonce ? { deviceNonce } : { address: from.address };
    const attempt = await this.throttle.attempt(account, source, () =>
      this.users.checkLoginPassword(candidate, password),
    );
    if (attempt.refused || !attempt.user) return attempt;
    if (attempt.user.status !== 'approved') {
      this.events.failed('not_approved');
      return attempt;
    }
    await this.users.recordLogin(attempt.user.id);
    return { ...attempt, deviceCookie: this.deviceCookies.issue(attempt.user.id) };
  }
}
