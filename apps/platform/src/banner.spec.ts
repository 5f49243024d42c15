import { type ServiceConfig, loadConfig } from '@fed/config';
import { banner } from './banner';

describe('the all-in-one banner', () => {
  const text = (edition: 'saas' | 'marketplace') =>
    banner(
      loadConfig('platform', { EDITION: edition, PORT: '8080' }) as ServiceConfig,
      'http://127.0.0.1:8080',
      true,
      'memory',
    );

  it('lists the model gateway, A2A and MCP in the SaaS edition', () => {
    expect(text('saas')).toMatch(/A2A agent card +http:\/\/localhost:8080\/.well-known\/agent-card.json\n/);
    expect(text('saas')).toMatch(/MCP \(streamable HTTP\) +http:\/\/localhost:8080\/api\/v1\/mcp\n/);
    expect(text('saas')).toContain('/llm/v1');
  });

  it('does not list what the Marketplace edition does not serve', () => {
    const marketplace = text('marketplace');
    expect(marketplace).not.toContain('agent-card.json');
    expect(marketplace).not.toContain('/api/v1/mcp');
    expect(marketplace).not.toContain('/llm');
    expect(marketplace).toContain('/readyz');
  });
});
