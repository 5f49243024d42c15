import { type LoginFailureReason, type Metrics, authLockouts, authLoginFailures } from '@fed/observability';

export interface SignInEvents {
  failed(reason: LoginFailureReason): void;
  lockedOut(): void;
}

export const IGNORED_SIGN_IN_EVENTS: SignInEvents = { failed: () => undefined, lockedOut: () => undefined };

/** `auth_login_failures_total{reason}` and `auth_lockouts_total` of the app's registry. */
export function signInMetrics(metrics: Metrics): SignInEvents {
  const failures = metrics.metric(authLoginFailures);
  const lockouts = metrics.metric(authLockouts);
  return {
    failed: (reason) => failures.inc({ reason }),
    lockedOut: () => lockouts.inc(),
  };
}
