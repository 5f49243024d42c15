import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseRoutingFile } from './routing-file';
import { RoutingError } from './routing-table';
import { routingSchema } from './routing.schema';

const problemsOf = (text: string, env: Record<string, string | undefined> = {}) => {
  try {
    parseRoutingFile(text, env);
  } catch (error) {
    if (error instanceof RoutingError) return error.problems;
    throw error;
  }
  return [];
};

describe('routing file', () => {
  it('is described by docs/gateway-routing.schema.json, equal to the schema the gateway checks', () => {
    const published = JSON.parse(
      readFileSync(path.resolve(__dirname, '../../../../docs/gateway-routing.schema.json'), 'utf8'),
    );
    expect(published).toEqual(JSON.parse(JSON.stringify(routingSchema)));
  });

  it('serves the demo model with no file content, and resolves names and aliases to their deployments', () => {
    expect(parseRoutingFile('').resolve('demo')?.deployments[0]?.provider.type).toBe('demo');
    const table = parseRoutingFile(
      `
providers:
  - { name: oai, type: openai, apiKeyEnv: OPENAI_KEY }
  - { name: az, type: azure-openai, baseUrl: 'https://x.openai.azure.com', apiVersion: '2024-10-21', apiKey: k }
models:
  - name: gpt
    aliases: [default, fast]
    tier: standard
    deployments: [{ provider: az, model: gpt-4o, deployment: prod }, { provider: oai, model: gpt-4o }]
`,
      { OPENAI_KEY: 'sk-from-env' },
    );
    const model = table.resolve('fast');
    expect(model?.name).toBe('gpt');
    expect(model?.deployments.map((d) => [d.provider.name, d.name])).toEqual([
      ['az', 'prod'],
      ['oai', 'oai/gpt-4o'],
    ]);
    expect(model?.deployments[1]?.provider).toMatchObject({
      origin: 'https://api.openai.com',
      basePath: '/v1',
      apiKey: 'sk-from-env',
      family: 'chat',
      responses: true,
    });
    expect(table.retries).toEqual({ attempts: 2, initialBackoffMs: 200, maxBackoffMs: 4000 });
  });

  it('assumes /responses only for OpenAI itself and Azure OpenAI; another server opts in', () => {
    const table = parseRoutingFile(`
providers:
  - { name: openai, type: openai, apiKey: k }
  - { name: azure, type: azure-openai, baseUrl: 'https://x.openai.azure.com', apiVersion: '2025-04-01-preview', apiKey: k }
  - { name: vllm, type: openai, baseUrl: 'http://vllm.internal:8000/v1' }
  - { name: ollama, type: openai, baseUrl: 'http://127.0.0.1:11434/v1', responses: true }
  - { name: proxy, type: openai, baseUrl: 'https://api.openai.com.example/v1' }
  - { name: claude, type: anthropic, apiKey: k }
models:
  - name: m
    deployments:
      - { provider: openai, model: a }
      - { provider: azure, model: a, deployment: a }
      - { provider: vllm, model: a }
      - { provider: ollama, model: a }
      - { provider: proxy, model: a }
      - { provider: claude, model: a }
`);
    expect(table.resolve('m')?.deployments.map((d) => [d.provider.name, d.provider.responses])).toEqual([
      ['openai', true],
      ['azure', true],
      ['vllm', false],
      ['ollama', true],
      ['proxy', false],
      ['claude', false],
    ]);
  });

  it('reports every problem at once: unknown fields, unknown providers, duplicates, a missing key variable', () => {
    const problems = problemsOf(`
providers:
  - { name: a, type: openai, apiKeyEnv: MISSING_KEY }
  - { name: a, type: anthropic }
  - { name: b, type: azure-openai, baseUrl: 'https://x' }
models:
  - { name: m, aliases: [m2], deployments: [{ provider: nowhere, model: x }] }
  - { name: m2, deployments: [{ provider: b, model: x }] }
`);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringContaining('MISSING_KEY is not set'),
        expect.stringContaining('provider a is defined twice'),
        expect.stringContaining('apiVersion is required'),
        expect.stringContaining('no provider named nowhere'),
        expect.stringContaining('m2 is used twice'),
        expect.stringContaining('a deployment name is required'),
      ]),
    );
    expect(problemsOf('models: [{ name: x, deployments: [], extra: 1 }]').join(' ')).toMatch(
      /additional properties|fewer than 1/,
    );
    expect(problemsOf('providers: [{ name: p, type: openai, baseUrl: "https://u:p@h/v1" }]')[0]).toContain(
      'credentials',
    );
    expect(problemsOf(': : :')[0]).toContain('not YAML or JSON');
  });

  it('refuses headers that would break the request to the provider', () => {
    expect(problemsOf('providers: [{ name: p, type: openai, headers: { Host: evil } }]')[0]).toContain('header Host');
  });
});
