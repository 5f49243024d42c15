import { modelCalls, turnScenario } from './scenario';

/**
 * agent-runtime killed (SIGKILL) in the middle of its turns while more arrive; a second runtime is started
 * at once. The killed runtime's turns that had shown text end with `runtime_lost`; the others complete.
 */
export const runtimeKilledScenario = turnScenario({
  name: 'runtime-killed',
  title: 'agent-runtime killed mid-turn',
  inQuickSubset: true,
  turns: { quick: 6, full: 50 },
  answers: { quick: { pieces: 8, pauseMs: 300 }, full: { pieces: 10, pauseMs: 500 } },
  // Half the turns start before the kill, half while the runtime is gone or its successor starts.
  spreadMs: { quick: 1500, full: 6000 },
  stack: { chatInstances: 1, runtimes: 1, redis: 'shared', postgres: 'shared' },
  faultAfter: (turns) => Math.ceil(turns / 2),
  fault: async ({ stack, context }) => {
    const [victim] = stack.runtimes;
    const streaming = modelCalls(stack);
    context.log(`  SIGKILL ${victim?.name} with ${streaming} turns streaming`);
    victim?.kill('SIGKILL');
    await victim?.exited(5000);
    await stack.startRuntime();
    return { notes: [`${streaming} turns were streaming on the killed runtime`] };
  },
});
