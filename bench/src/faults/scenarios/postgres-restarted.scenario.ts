import { setTimeout as sleep } from 'node:timers/promises';
import { postgresBinaries } from '../stack/own-postgres';
import { modelCalls, turnScenario } from './scenario';

const DOWN_MS = 3000;

/**
 * The stack's PostgreSQL (a throwaway cluster of its own, never the machine's) stopped (`pg_ctl stop -m
 * fast`: every connection closed) and started again while turns stream and more arrive.
 */
export const postgresRestartedScenario = turnScenario({
  name: 'postgres-restarted',
  title: 'PostgreSQL restarted during streamed turns',
  inQuickSubset: false,
  unavailable: () =>
    postgresBinaries() ? undefined : 'no PostgreSQL server binaries here (/usr/lib/postgresql/<n>/bin)',
  turns: { quick: 10, full: 50 },
  answers: { quick: { pieces: 8, pauseMs: 300 }, full: { pieces: 10, pauseMs: 500 } },
  spreadMs: { quick: 3000, full: 8000 },
  stack: { chatInstances: 1, runtimes: 1, redis: 'shared', postgres: 'own' },
  faultAfter: (turns) => Math.ceil(turns / 3),
  invariants: { refusalsExpected: true },
  fault: async ({ stack, context }) => {
    const postgres = stack.ownPostgres;
    if (!postgres) throw new Error('the scenario needs its own PostgreSQL');
    const streaming = modelCalls(stack);
    context.log(`  PostgreSQL down for ${DOWN_MS} ms with ${streaming} turns started`);
    await postgres.down('fast');
    await sleep(DOWN_MS);
    await postgres.up();
    return { notes: [`PostgreSQL down ${DOWN_MS / 1000} s with ${streaming} turns started`] };
  },
});
