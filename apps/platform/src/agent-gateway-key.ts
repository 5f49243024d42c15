import { type ServiceConfig } from '@fed/config';
import { apiKeysServiceFor, gatewayEntities } from '@fed/gateway';
import { createDataSource, dataSourceOptions } from '@fed/persistence';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

export const AGENT_GATEWAY_KEY_FILE = 'agent-gateway-key';
const KEY_NAME = 'agent-runtime';

/** Unless AGENT_GATEWAY_API_KEY or AGENT_CLIENT_ID is set, the agent's gateway key from DATA_DIR, or a new one. */
export async function withAgentGatewayKey(config: ServiceConfig): Promise<ServiceConfig> {
  // The Marketplace edition's gateway takes virtual keys only: a client of the agent's is no use there.
  if (config.agent.gatewayApiKey || (config.agent.clientId && config.edition !== 'marketplace')) return config;
  const file = path.join(config.dataDir, AGENT_GATEWAY_KEY_FILE);
  const dataSource = await createDataSource(
    dataSourceOptions({
      url: config.database.url as string,
      poolSize: 1,
      applicationName: 'fed-platform-setup',
      entities: gatewayEntities,
    }),
  );
  try {
    const keys = apiKeysServiceFor(dataSource, { keyPrefix: config.gateway.keyPrefix });
    if (existsSync(file)) {
      const kept = (await readFile(file, 'utf8')).trim();
      if (kept && (await keys.isLive(kept))) {
        return { ...config, agent: { ...config.agent, gatewayApiKey: kept } };
      }
    }
    const { apiKey } = await keys.create({
      name: KEY_NAME,
    });
    await mkdir(config.dataDir, { recursive: true });
    await writeFile(file, `${apiKey}\n`, { mode: 0o600 });
    return { ...config, agent: { ...config.agent, gatewayApiKey: apiKey } };
  } finally {
    await dataSource.destroy();
  }
}
