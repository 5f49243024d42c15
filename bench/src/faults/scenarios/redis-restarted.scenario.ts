import { setTimeout as sleep } from 'node:timers/promises';
import { modelCalls, turnScenario } from './scenario';

const DOWN_MS = 2000;

/**
 * The stack's Redis (a throwaway redis-server without persistence, never the machine's) killed and
 * started again, empty, while turns stream and more arrive: run queue, run streams and signals are gone.
 */
export const redisRestartedScenario = turnScenario({
  name: 'redis-restarted',
  title: 'Redis restarted (empty) during streamed turns',
  inQuickSubset: false,
  turns: { quick: 10, full: 50 },
  answers: { quick: { pieces: 8, pauseMs: 300 }, full: { pieces: 10, pauseMs: 500 } },
  spreadMs: { quick: 3000, full: 8000 },
  stack: { chatInstances: 1, runtimes: 1, redis: 'own', postgres: 'shared' },
  faultAfter: (turns) => Math.ceil(turns / 3),
  invariants: { refusalsExpected: true },
  fault: async ({ stack, context }) => {
    const redis = stack.ownRedis;
    if (!redis) throw new Error('the scenario needs its own Redis');
    const streaming = modelCalls(stack);
    context.log(`  Redis down for ${DOWN_MS} ms with ${streaming} turns started`);
    await redis.down();
    await sleep(DOWN_MS);
    await redis.up();
    return {
      notes: [`Redis down ${DOWN_MS / 1000} s with ${streaming} turns started, back empty (no persistence)`],
    };
  },
});
