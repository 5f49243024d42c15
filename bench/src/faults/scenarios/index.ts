import { chatKilledScenario } from './chat-killed.scenario';
import { postgresLockScenario } from './postgres-lock.scenario';
import { postgresRestartedScenario } from './postgres-restarted.scenario';
import { providerFailingScenario } from './provider-failing.scenario';
import { redisRestartedScenario } from './redis-restarted.scenario';
import { runtimeKilledScenario } from './runtime-killed.scenario';
import { runtimeRollingRestartScenario } from './runtime-rolling-restart.scenario';
import { type Scenario } from './scenario';
import { smtpDownScenario } from './smtp-down.scenario';

export * from './scenario';

/** In the order of the list, which is the order of the results table. */
export const scenarios: Scenario[] = [
  runtimeKilledScenario,
  runtimeRollingRestartScenario,
  chatKilledScenario,
  redisRestartedScenario,
  postgresRestartedScenario,
  postgresLockScenario,
  providerFailingScenario,
  smtpDownScenario,
];
