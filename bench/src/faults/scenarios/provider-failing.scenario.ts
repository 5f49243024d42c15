import { modelCalls, turnScenario } from './scenario';

/**
 * The model provider fails every other call (in turn a 500 and a connection closed before a byte); the
 * gateway's retries (routing default: 2 attempts) hide most of it, and a turn whose calls all fail ends
 * with `model_unavailable`.
 */
export const providerFailingScenario = turnScenario({
  name: 'provider-failing',
  title: 'the provider failing half its calls',
  inQuickSubset: true,
  turns: { quick: 10, full: 50 },
  answers: { quick: { pieces: 4, pauseMs: 100 }, full: { pieces: 6, pauseMs: 200 } },
  spreadMs: { quick: 1000, full: 5000 },
  stack: { chatInstances: 1, runtimes: 1, redis: 'shared', postgres: 'shared', providerFailures: 'every-other-call' },
  endWithinMs: { quick: 60_000, full: 120_000 },
  // The fault is the provider's from the start.
  fault: async ({ stack }) => ({
    notes: () => {
      const calls = modelCalls(stack);
      return [`${calls} provider calls, ${Math.ceil(calls / 2)} of them failed`];
    },
  }),
});
