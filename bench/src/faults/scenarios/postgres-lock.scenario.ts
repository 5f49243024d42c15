import { sql } from '../stack/fault-stack';
import { modelCalls, turnScenario } from './scenario';

const HOLD_SECONDS = 5;

/**
 * PostgreSQL stalled: a transaction holds `ACCESS EXCLUSIVE` on `conversations.messages` (the table every
 * turn writes: admission, heartbeats, the end) for 5 s while turns stream and more arrive.
 */
export const postgresLockScenario = turnScenario({
  name: 'postgres-lock',
  title: 'PostgreSQL stalled by a lock held 5 s',
  inQuickSubset: true,
  turns: { quick: 6, full: 50 },
  answers: { quick: { pieces: 8, pauseMs: 300 }, full: { pieces: 10, pauseMs: 500 } },
  spreadMs: { quick: 3000, full: 8000 },
  stack: { chatInstances: 1, runtimes: 1, redis: 'shared', postgres: 'shared' },
  faultAfter: (turns) => Math.ceil(turns / 3),
  fault: async ({ stack, context }) => {
    const streaming = modelCalls(stack);
    context.log(`  LOCK conversations.messages for ${HOLD_SECONDS} s with ${streaming} turns started`);
    const held = Date.now();
    await sql(
      stack.databaseUrl,
      `DO $$ BEGIN LOCK TABLE conversations.messages IN ACCESS EXCLUSIVE MODE; PERFORM pg_sleep(${HOLD_SECONDS}); END $$`,
    );
    const heldSeconds = (Date.now() - held) / 1000;
    return { notes: [`lock held ${heldSeconds.toFixed(1)} s with ${streaming} turns started`] };
  },
});
