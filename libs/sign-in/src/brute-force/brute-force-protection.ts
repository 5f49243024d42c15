import { COUNTERS, type Counters } from '@fed/bus';
import { METRICS, type Metrics } from '@fed/observability';
import { Inject, Injectable } from '@nestjs/common';
import { ClientThrottle } from './client-throttle';
import { LoginThrottle, defaultLoginThrottlePolicy } from './login-throttle';
import { type SignInEvents, signInMetrics } from './sign-in-events';

@Injectable()
export class BruteForceProtection {
  readonly events: SignInEvents;

  constructor(
    @Inject(COUNTERS) private readonly counters: Counters,
    @Inject(METRICS) metrics: Metrics,
  ) {
    this.events = signInMetrics(metrics);
  }

  loginThrottle(): LoginThrottle {
    return new LoginThrottle(this.counters, defaultLoginThrottlePolicy, this.events);
  }

  /** `rememberCleanMs`: see ClientThrottle (the token endpoint's hot path). */
  clientThrottle(rememberCleanMs?: number): ClientThrottle {
    return new ClientThrottle(this.counters, undefined, {
      events: this.events,
      ...(rememberCleanMs !== undefined ? { rememberCleanMs } : {}),
    });
  }
}
