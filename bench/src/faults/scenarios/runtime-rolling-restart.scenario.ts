import { turnScenario } from './scenario';

/**
 * A rolling restart of agent-runtime as an orchestrator does it (a new instance up, then the old one
 * stopped with SIGTERM, one at a time) while streamed turns come in: no answer may be cut.
 */
export const runtimeRollingRestartScenario = turnScenario({
  name: 'runtime-rolling-restart',
  title: 'rolling restart of agent-runtime during streamed turns',
  inQuickSubset: false,
  turns: { quick: 10, full: 50 },
  answers: { quick: { pieces: 8, pauseMs: 300 }, full: { pieces: 12, pauseMs: 500 } },
  spreadMs: { quick: 4000, full: 12_000 },
  stack: { chatInstances: 1, runtimes: 2, redis: 'shared', postgres: 'shared' },
  faultAfter: (turns) => Math.ceil(turns / 5),
  invariants: { noErrorChunks: true },
  fault: async ({ stack, context }) => {
    const stops: string[] = [];
    for (const old of [...stack.runtimes]) {
      await stack.startRuntime();
      const before = Date.now();
      old.kill('SIGTERM');
      const code = await old.exited(60_000);
      stops.push(`${old.name} stopped in ${((Date.now() - before) / 1000).toFixed(1)} s (exit ${code})`);
      context.log(`  ${stops.at(-1)}`);
    }
    return { notes: stops };
  },
});
