import { useTestDatabase } from '@fed/persistence/testing';
import { ScriptedUpstream } from '@fed/testing';
import { AgentProtocolsModule } from './platform-features';
import { type ChatStack, bootChatStack } from './testing/boot-chat-stack';
import { connectMcp, mcpInitialize, mcpUrl } from './testing/mcp-client';

// Resource-bound access tokens (RFC 8707, issue 35) at the resource servers: a token whose `aud` is the
// MCP endpoint's URL is taken by MCP alone, one of the A2A endpoint's URL by A2A alone; every other route
// refuses both as before (401 invalid_token), and a token of `broker` is taken everywhere, as today.

describe('resource-bound access tokens at the MCP, A2A and chat endpoints', () => {
  const database = useTestDatabase();
  let upstream: ScriptedUpstream;
  let stack: ChatStack;
  let resources: { mcp: string; a2a: string };

  beforeAll(async () => {
    upstream = await ScriptedUpstream.start();
    stack = await bootChatStack(database.url, upstream.url, { features: [AgentProtocolsModule] });
    // The resource indicators are PUBLIC_URL's, as the protected-resource metadata names them.
    const publicUrl = stack.service.config.http.publicUrl;
    resources = { mcp: `${publicUrl}/api/v1/mcp`, a2a: `${publicUrl}/api/v1/a2a` };
  });
  afterAll(async () => {
    await stack?.close();
    await upstream?.close();
  });

  const EVERY_SCOPE = 'chat:exec chat:history mcp:all a2a:all';
  const tokenFor = (aud: string) => stack.mint({ aud, scope: EVERY_SCOPE });

  const mcpStatus = (token: string) => mcpInitialize(mcpUrl(stack.api), token);

  async function a2aStatus(token: string) {
    const response = await fetch(`${stack.service.url}/api/v1/a2a`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'a2a-version': '0.3' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: crypto.randomUUID() } }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  async function chatStatus(token: string) {
    const response = await fetch(`${stack.api}/v1/conversations`, { headers: { authorization: `Bearer ${token}` } });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  it('MCP takes a token for its URL through the SDK, and refuses one for A2A with 401 invalid_token', async () => {
    const client = await connectMcp(stack.api, await tokenFor(resources.mcp));
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('execute_chat');
    await client.close();

    const refused = await mcpStatus(await tokenFor(resources.a2a));
    expect(refused.status).toBe(401);
    expect(refused.challenge).toContain('error="invalid_token"');
    expect(refused.challenge).toContain('resource_metadata=');
  });

  it('A2A takes a token for its URL, and refuses one for MCP with 401 invalid_token', async () => {
    const taken = await a2aStatus(await tokenFor(resources.a2a));
    expect(taken.status).toBe(200);
    expect(taken.body).toMatchObject({ jsonrpc: '2.0', id: 1, error: expect.any(Object) });
    const refused = await a2aStatus(await tokenFor(resources.mcp));
    expect(refused).toMatchObject({ status: 401, body: { error: { code: 'invalid_token' } } });
  });

  it('the chat API refuses a token for MCP or A2A (401 invalid_token), and takes a broker one', async () => {
    for (const aud of [resources.mcp, resources.a2a]) {
      expect(await chatStatus(await tokenFor(aud))).toMatchObject({
        status: 401,
        body: { error: { code: 'invalid_token', message: 'the token is meant for another audience' } },
      });
    }
    expect((await chatStatus(await tokenFor('broker'))).status).toBe(200);
  });

  it('the links MCP and A2A answers hand out (deliverables, UI resources) take a token for either resource', async () => {
    const conversation = crypto.randomUUID();
    const links = [
      `${stack.api}/v1/conversations/${conversation}/deliverables/content?messageId=${crypto.randomUUID()}&filepath=report.md`,
      `${stack.api}/v1/conversations/${conversation}/ui-resources/call_1`,
    ];
    for (const link of links) {
      for (const aud of [resources.mcp, resources.a2a, 'broker']) {
        const response = await fetch(link, { headers: { authorization: `Bearer ${await tokenFor(aud)}` } });
        // Past the token: this user has no such conversation.
        expect({ link, aud, status: response.status }).toEqual({ link, aud, status: 404 });
      }
      const elsewhere = await fetch(link, {
        headers: { authorization: `Bearer ${await tokenFor('https://elsewhere.example.com/api/v1/mcp')}` },
      });
      expect(elsewhere.status).toBe(401);
    }
  });

  it('takes a broker token at MCP and A2A as before, and refuses a token for a resource of another server', async () => {
    const broker = await tokenFor('broker');
    expect((await mcpStatus(broker)).status).toBe(200);
    expect((await a2aStatus(broker)).status).toBe(200);
    const elsewhere = await tokenFor('https://elsewhere.example.com/api/v1/mcp');
    expect((await mcpStatus(elsewhere)).status).toBe(401);
    expect((await a2aStatus(elsewhere)).status).toBe(401);
    expect((await chatStatus(elsewhere)).status).toBe(401);
  });

  it('one token verified at one route is still refused at another (the verification cache is per token, not per route)', async () => {
    const token = await tokenFor(resources.mcp);
    expect((await mcpStatus(token)).status).toBe(200);
    expect((await chatStatus(token)).status).toBe(401);
    expect((await a2aStatus(token)).status).toBe(401);
    expect((await mcpStatus(token)).status).toBe(200);
  });
});
