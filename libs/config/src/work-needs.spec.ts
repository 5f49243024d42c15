import { loadConfig } from './service-config';
import { unmetNeeds } from './work-needs';

const serviceEnv = { DATABASE_URL: 'postgres://app@db:5432/fed', REDIS_URL: 'redis://redis:6379' };

const unmetIn = (app: 'agent-runtime' | 'platform' | 'chat-service', env: Record<string, string>) =>
  unmetNeeds(loadConfig(app, { ...serviceEnv, ...env })).map((p) => p.variable);

describe('what an app needs for its work', () => {
  it('names the gateway key when agent-runtime has no credentials for the model gateway', () => {
    const [problem] = unmetNeeds(loadConfig('agent-runtime', serviceEnv));
    expect(problem.variable).toBe('AGENT_GATEWAY_API_KEY');
    expect(problem.problem).toContain('every agent turn ends with model_unavailable');
    expect(problem.problem).toContain('AGENT_CLIENT_ID and AGENT_CLIENT_SECRET');
  });

  it('is met in agent-runtime by a gateway key, or by a client id with its secret', () => {
    expect(unmetIn('agent-runtime', { AGENT_GATEWAY_API_KEY: 'fed_key' })).toEqual([]);
    expect(unmetIn('agent-runtime', { AGENT_CLIENT_ID: 'agent', AGENT_CLIENT_SECRET: 's3cret' })).toEqual([]);
  });

  it('needs a gateway key in the Marketplace edition, whose gateway refuses client-credentials tokens', () => {
    const marketplace = { EDITION: 'marketplace' };
    expect(unmetIn('agent-runtime', { ...marketplace, AGENT_CLIENT_ID: 'agent', AGENT_CLIENT_SECRET: 's' })).toEqual([
      'AGENT_GATEWAY_API_KEY',
    ]);
    expect(unmetIn('agent-runtime', { ...marketplace, AGENT_GATEWAY_API_KEY: 'fed_key' })).toEqual([]);
    // platform makes its agent a key at start.
    expect(unmetIn('platform', { ...marketplace, AGENT_CLIENT_ID: 'agent' })).toEqual([]);
  });

  it('names the missing half of the client credentials', () => {
    expect(unmetIn('agent-runtime', { AGENT_CLIENT_ID: 'agent' })).toEqual(['AGENT_CLIENT_SECRET']);
    expect(unmetIn('agent-runtime', { AGENT_CLIENT_SECRET: 's3cret' })).toEqual(['AGENT_CLIENT_ID']);
    expect(unmetIn('platform', { AGENT_CLIENT_ID: 'agent' })).toEqual(['AGENT_CLIENT_SECRET']);
  });

  it('needs nothing of platform, which makes its agent a gateway key, nor of an app that runs no turns', () => {
    expect(unmetIn('platform', {})).toEqual([]);
    expect(unmetIn('platform', { AGENT_CLIENT_SECRET: 'unused' })).toEqual([]);
    expect(unmetIn('chat-service', {})).toEqual([]);
  });
});
