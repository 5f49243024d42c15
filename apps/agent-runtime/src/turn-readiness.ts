import { type AppConfig, unmetNeeds } from '@fed/config';
import { type Logger } from '@fed/observability';
import { lookup } from 'node:dns/promises';

/** Logs at start the gateway address, credentials and DNS (else unseen until a turn fails); never blocks start. */
export async function reportTurnReadiness(
  config: AppConfig<'agent-runtime'>,
  logger: Logger,
  resolve: (host: string) => Promise<unknown> = lookup,
): Promise<void> {
  const { gatewayUrl, gatewayApiKey, clientId, clientSecret } = config.agent;
  const credentials = gatewayApiKey
    ? 'the gateway key in AGENT_GATEWAY_API_KEY'
    : clientId && clientSecret
      ? `a client-credentials token of ${clientId} from ${config.auth.authUrl} (AUTH_URL)`
      : 'no credentials';
  logger.info({ gatewayUrl }, `agent turns call the model gateway at ${gatewayUrl} with ${credentials}`);
  for (const need of unmetNeeds(config)) logger.warn({ variable: need.variable }, `${need.variable} ${need.problem}`);

  const host = new URL(gatewayUrl).hostname.replace(/^\[(.*)\]$/, '$1');
  try {
    await resolve(host);
  } catch (error) {
    logger.warn(
      { gatewayUrl, reason: error instanceof Error ? error.message : String(error) },
      `the model gateway's host ${host} does not resolve here, so every agent turn will end with model_unavailable: ` +
        "outside compose and Kubernetes, set AGENT_GATEWAY_URL to llm-gateway's address (e.g. http://127.0.0.1:8080/llm/v1)",
    );
  }
}
