import { TurnStarter } from '@fed/conversations';
import { useTestDatabase } from '@fed/persistence/testing';
import { ProtocolTurnsModule } from '@fed/protocols';
import { ScriptedUpstream } from '@fed/testing';
import { AgentProtocolsModule } from './platform-features';
import { type ChatStack, bootChatStack } from './testing/boot-chat-stack';

// The chat endpoint and the protocol front doors in one process run turns through one starter (so its
// pending cancel checks and shutdown are one), not one each.
describe('the turn starter of a process that serves chat, A2A and MCP', () => {
  const database = useTestDatabase();
  let upstream: ScriptedUpstream;
  let stack: ChatStack;

  beforeAll(async () => {
    upstream = await ScriptedUpstream.start();
    stack = await bootChatStack(database.url, upstream.url, { features: [AgentProtocolsModule] });
  });
  afterAll(async () => {
    await stack?.close();
    await upstream?.close();
  });

  it('is one instance', () => {
    expect(stack.service.nest.get(TurnStarter, { strict: false, each: true })).toHaveLength(1);
    // The protocol side reaches the same instance.
    expect(stack.service.nest.select(ProtocolTurnsModule).get(TurnStarter)).toBe(
      stack.service.nest.get(TurnStarter, { strict: false }),
    );
  });
});
