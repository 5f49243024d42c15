import { type ServiceConfig } from '@fed/config';

/** What a developer needs after `npm start`: where everything this edition serves is. */
export function banner(
  config: ServiceConfig,
  listening: string,
  embeddedDatabase: boolean,
  busKind: string,
  extra: string[] = [],
): string {
  const base = config.http.publicUrl;
  // The Marketplace edition has neither the model gateway nor A2A and MCP (document 3): not listed there.
  const saas = config.edition !== 'marketplace';
  const rows: [string, string][] = [
    // The Marketplace edition's web app is its admin panel (the console, docs/marketplace.md).
    [saas ? 'Web app (open in a browser)' : 'Admin panel (open in a browser)', `${base}/`],
    ['API base ({base_url})', `${base}/api/v1`],
    ['OpenID discovery', `${config.auth.issuer}/.well-known/openid-configuration`],
    ...(saas
      ? ([
          // Each SDK's base URL: the OpenAI client appends `/chat/completions` to its base, the Anthropic
          // client appends `/v1/messages` itself.
          ['Model gateway, OpenAI SDK', `${base}/llm/v1`],
          ['Model gateway, Anthropic SDK', `${base}/llm`],
          ['A2A agent card', `${base}/.well-known/agent-card.json`],
          ['A2A (JSON-RPC)', `${base}/api/v1/a2a`],
          ['MCP (streamable HTTP)', `${base}/api/v1/mcp`],
        ] as [string, string][])
      : []),
    ['Liveness', `${base}/healthz`],
    ['Readiness', `${base}/readyz`],
    ['Metrics', `${base}/metrics`],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  const lines = [
    '',
    `Federation agent platform (all-in-one, ${config.edition}) listening on ${listening}`,
    `  database: ${embeddedDatabase ? `embedded PostgreSQL in ${config.dataDir}` : 'PostgreSQL at DATABASE_URL'}`,
    `  node:     ${process.version}`,
    `  bus:      ${busKind === 'redis' ? 'Redis at REDIS_URL' : 'in-process (set REDIS_URL to use Redis)'}`,
    '',
    ...rows.map(([label, url]) => `  ${label.padEnd(width)}  ${url}`),
    '',
    ...extra,
    'Press Ctrl-C to stop.',
    '',
  ];
  return lines.join('\n');
}
