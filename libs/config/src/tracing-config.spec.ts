import { ConfigError, loadConfig, loadTracingConfig } from './service-config';

describe('tracing configuration', () => {
  it('reads the tracing variables alone: nothing else is required before tracing starts', () => {
    expect(loadTracingConfig('chat-service', {})).toEqual({
      protocol: 'http/protobuf',
      sampler: 'parentbased_always_on',
      samplerRatio: 1,
    });
    expect(
      loadTracingConfig('llm-gateway', {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318/',
        OTEL_SERVICE_NAME: 'gateway-eu',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=abc,team=core%20team',
        DATABASE_URL: 'not read here',
      }),
    ).toEqual({
      endpoint: 'http://otel-collector:4318',
      serviceName: 'gateway-eu',
      protocol: 'http/protobuf',
      sampler: 'parentbased_traceidratio',
      samplerRatio: 0.25,
      headers: 'x-api-key=abc,team=core%20team',
    });
  });

  it('refuses a bad value, naming the variable and never echoing a header value', () => {
    const refused = (env: Record<string, string>) => {
      try {
        loadTracingConfig('agent-runtime', env);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as ConfigError).problems;
      }
      throw new Error('accepted');
    };
    expect(refused({ OTEL_EXPORTER_OTLP_ENDPOINT: 'otel-collector:4318' })[0]?.variable).toBe(
      'OTEL_EXPORTER_OTLP_ENDPOINT',
    );
    expect(refused({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'ftp://x/v1/traces' })[0]?.variable).toBe(
      'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    );
    expect(refused({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http' })[0]?.variable).toBe('OTEL_EXPORTER_OTLP_PROTOCOL');
    expect(refused({ OTEL_TRACES_SAMPLER: 'sometimes' })[0]?.variable).toBe('OTEL_TRACES_SAMPLER');
    for (const ratio of ['1.5', '-0.1', 'half', '0.5x']) {
      expect(refused({ OTEL_TRACES_SAMPLER_ARG: ratio })[0]?.variable).toBe('OTEL_TRACES_SAMPLER_ARG');
    }
    expect(refused({ OTEL_SERVICE_NAME: ' ' })[0]?.variable).toBe('OTEL_SERVICE_NAME');
    const [header] = refused({ OTEL_EXPORTER_OTLP_HEADERS: 'authorization: Bearer secret-token' });
    expect(header?.variable).toBe('OTEL_EXPORTER_OTLP_HEADERS');
    expect(header?.problem).not.toContain('secret-token');
  });

  it('is a section of every hosted app, so that the app refuses to start on a bad tracing value too', () => {
    const env = { DATABASE_URL: 'postgres://db/fed', REDIS_URL: 'redis://redis:6379' };
    expect(loadConfig('chat-service', { ...env, OTEL_SERVICE_NAME: 'chat' }).tracing.serviceName).toBe('chat');
    expect(() => loadConfig('platform', { OTEL_TRACES_SAMPLER_ARG: '7' })).toThrow(/OTEL_TRACES_SAMPLER_ARG/);
    // platformctl is a command, not a service: it is never traced.
    expect(loadConfig('platformctl', {})).not.toHaveProperty('tracing');
  });
});
