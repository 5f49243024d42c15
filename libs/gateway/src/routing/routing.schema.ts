const name = { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._:/@-]{0,199}$' } as const;

/** `docs/gateway-routing.schema.json` is this object (a test keeps them equal). */
export const routingSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'https://federation.invalid/schemas/gateway-routing.schema.json',
  title: 'Model gateway routing file',
  type: 'object',
  additionalProperties: false,
  properties: {
    providers: {
      type: 'array',
      maxItems: 200,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'type'],
        properties: {
          name,
          type: { enum: ['openai', 'azure-openai', 'anthropic', 'demo'] },
          baseUrl: { type: 'string', pattern: '^https?://[^\\s]+$', maxLength: 2000 },
          apiKeyEnv: { type: 'string', pattern: '^[A-Z_][A-Z0-9_]{0,127}$' },
          apiKey: { type: 'string', minLength: 1, maxLength: 4000 },
          apiVersion: { type: 'string', pattern: '^[A-Za-z0-9.-]{1,40}$' },
          headers: {
            type: 'object',
            maxProperties: 50,
            propertyNames: { pattern: '^[A-Za-z0-9-]{1,100}$' },
            additionalProperties: { type: 'string', maxLength: 4000 },
          },
          responses: { type: 'boolean' },
          embeddings: { type: 'boolean' },
          maxTokensField: { enum: ['max_tokens', 'max_completion_tokens'] },
          connections: { type: 'integer', minimum: 1, maximum: 100000 },
          queueTimeoutSeconds: { type: 'integer', minimum: 1, maximum: 600 },
          timeoutSeconds: { type: 'integer', minimum: 1, maximum: 3600 },
        },
      },
    },
    models: {
      type: 'array',
      maxItems: 2000,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'deployments'],
        properties: {
          name,
          aliases: { type: 'array', maxItems: 50, items: name },
          tier: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,50}$' },
          deployments: {
            type: 'array',
            minItems: 1,
            maxItems: 20,
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['provider', 'model'],
              properties: {
                provider: name,
                model: { type: 'string', minLength: 1, maxLength: 200, pattern: '^[^\\s]+$' },
                deployment: { type: 'string', pattern: '^[A-Za-z0-9._/-]{1,200}$' },
              },
            },
          },
          pricing: {
            type: 'object',
            additionalProperties: false,
            required: ['input', 'output'],
            properties: {
              input: { type: 'number', minimum: 0 },
              output: { type: 'number', minimum: 0 },
              cacheRead: { type: 'number', minimum: 0 },
              cacheWrite: { type: 'number', minimum: 0 },
            },
          },
        },
      },
    },
    retries: {
      type: 'object',
      additionalProperties: false,
      properties: {
        attempts: { type: 'integer', minimum: 1, maximum: 10 },
        initialBackoffMs: { type: 'integer', minimum: 0, maximum: 60000 },
        maxBackoffMs: { type: 'integer', minimum: 0, maximum: 120000 },
      },
    },
    defaultMaxTokens: { type: 'integer', minimum: 1, maximum: 1000000 },
  },
} as const;
