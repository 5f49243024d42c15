import { type AppName } from './app-names';
import { type ConfigProblem } from './service-config';

/**
 * Needs that no single variable's definition can say. The app still starts (a compose stack starts before
 * the agent's gateway key exists), but `platformctl config check` and agent-runtime report them. `needsText`
 * documents the same rules.
 */
export function unmetNeeds(config: {
  app: AppName;
  edition?: string;
  agent?: { gatewayApiKey?: string; clientId?: string; clientSecret?: string };
}): ConfigProblem[] {
  if (!config.agent || (config.app !== 'agent-runtime' && config.app !== 'platform')) return [];
  const { gatewayApiKey, clientId, clientSecret } = config.agent;
  if (gatewayApiKey) return [];
  const consequence =
    'the agent has no credentials for the model gateway, so every agent turn ends with model_unavailable';
  // The Marketplace edition's gateway serves virtual keys only (docs/marketplace.md); platform makes one.
  if (config.edition === 'marketplace') {
    return config.app === 'platform'
      ? []
      : [
          {
            variable: 'AGENT_GATEWAY_API_KEY',
            problem:
              "is not set: the Marketplace edition's model gateway takes virtual keys only (it refuses a token of " +
              'AGENT_CLIENT_ID and AGENT_CLIENT_SECRET), so every agent turn ends with model_unavailable. ' +
              'Make a key with `platformctl apikeys create --name agent-runtime`',
          },
        ];
  }
  if (clientId && clientSecret) return [];
  if (clientId) {
    return [{ variable: 'AGENT_CLIENT_SECRET', problem: `is not set, but AGENT_CLIENT_ID is: ${consequence}` }];
  }
  // platform makes a gateway key for its agent when given none.
  if (config.app === 'platform') return [];
  if (clientSecret) {
    return [
      {
        variable: 'AGENT_CLIENT_ID',
        problem: `is not set, but AGENT_CLIENT_SECRET is (and AGENT_GATEWAY_API_KEY is not): ${consequence}`,
      },
    ];
  }
  return [
    {
      variable: 'AGENT_GATEWAY_API_KEY',
      problem:
        `is not set, nor are AGENT_CLIENT_ID and AGENT_CLIENT_SECRET: ${consequence}. ` +
        'Make a key with `platformctl apikeys create --name agent-runtime`',
    },
  ];
}

/** For docs/configuration.md. */
export const needsText: Partial<Record<AppName, string>> = {
  'agent-runtime':
    'agent turns: `AGENT_GATEWAY_API_KEY`, or `AGENT_CLIENT_ID` and `AGENT_CLIENT_SECRET` (its credentials at the model gateway; the Marketplace edition takes the key only)',
  platform:
    'agent turns: `AGENT_CLIENT_SECRET` if `AGENT_CLIENT_ID` is set (with neither, it makes a gateway key for its agent)',
};
