import { turnScenario } from './scenario';

/**
 * One of two chat-service instances killed (SIGKILL) with its share of open streams: its clients
 * reconnect to the other instance with Last-Event-ID and read their answers to the end.
 */
export const chatKilledScenario = turnScenario({
  name: 'chat-killed',
  title: 'chat-service killed with open streams',
  inQuickSubset: true,
  turns: { quick: 10, full: 100 },
  answers: { quick: { pieces: 8, pauseMs: 300 }, full: { pieces: 16, pauseMs: 500 } },
  spreadMs: { quick: 500, full: 3000 },
  stack: { chatInstances: 2, runtimes: 2, redis: 'shared', postgres: 'shared' },
  faultAfter: (streams) => streams,
  invariants: { noErrorChunks: true },
  fault: async ({ stack, turns: streams, context }) => {
    const [victim] = stack.chats;
    context.log(`  SIGKILL ${victim?.name} with ${streams} streams open on 2 instances`);
    victim?.kill('SIGKILL');
    await victim?.exited(5000);
    return {
      problems: (counts) => (counts.reconnects === 0 ? ['no client reconnected: the kill cut no stream'] : []),
    };
  },
});
