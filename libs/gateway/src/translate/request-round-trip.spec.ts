import { type ChatCompletionRequest } from '../wire';
import { chatRequestToAnthropic } from './chat-request-to-anthropic';
import { messagesRequestToChat } from './messages-request-to-chat';

describe('a request translated chat -> anthropic -> chat', () => {
  // A coding agent's third turn: two tool calls answered, then a follow-up from the user.
  const agentConversation: ChatCompletionRequest = {
    model: 'client-model',
    messages: [
      { role: 'system', content: 'You are a coding agent. Use the tools.' },
      { role: 'user', content: 'Why does the build fail?' },
      {
        role: 'assistant',
        content: 'I will look at the config and the log.',
        tool_calls: [
          { id: 'call_cfg', type: 'function', function: { name: 'read_file', arguments: '{"path":"tsconfig.json"}' } },
          {
            id: 'call_log',
            type: 'function',
            function: { name: 'run', arguments: '{"command":"npm run build","timeout":60}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_cfg', content: '{"compilerOptions":{"strict":true}}' },
      { role: 'tool', tool_call_id: 'call_log', content: 'error TS2322: Type string is not assignable to number' },
      { role: 'assistant', content: 'A string is assigned to a number field. Shall I fix it?' },
      { role: 'user', content: 'Yes, fix it.' },
    ],
    tools: [
      {
        type: 'function',
        function: {
          name: 'read_file',
          description: 'Read a file',
          parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
        },
      },
      {
        type: 'function',
        function: {
          name: 'run',
          description: 'Run a shell command',
          parameters: { type: 'object', properties: { command: { type: 'string' }, timeout: { type: 'number' } } },
        },
      },
    ],
    tool_choice: 'auto',
    max_tokens: 2000,
    temperature: 0.5,
    stop: ['<done>'],
    user: 'dev-1',
  };

  it('keeps the meaning of a multi-turn agent conversation with two tool calls', () => {
    const anthropic = chatRequestToAnthropic(agentConversation, 'claude-upstream', { defaultMaxTokens: 4096 });
    expect(anthropic.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);

    const back = messagesRequestToChat(anthropic, 'client-model', { maxTokensField: 'max_tokens' });
    expect(back.messages).toEqual(agentConversation.messages);
    expect(back.tools).toEqual(agentConversation.tools);
    expect(back).toMatchObject({
      model: 'client-model',
      tool_choice: 'auto',
      max_tokens: 2000,
      temperature: 0.5,
      stop: ['<done>'],
      user: 'dev-1',
    });
  });
});
