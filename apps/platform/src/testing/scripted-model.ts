import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';

/** The gateway model that the agent uses when its provider is the scripted upstream. */
export const SCRIPTED_AGENT_MODEL = 'agent-model';

/**
 * Writes, in `dir`, a gateway routing file whose one model goes to the scripted upstream at `upstreamUrl`, tried
 * once; returns its path (LLM_GATEWAY_ROUTING_FILE).
 */
export function writeScriptedRouting(dir: string, upstreamUrl: string): string {
  const file = path.join(dir, 'routing.yaml');
  writeFileSync(
    file,
    stringify({
      providers: [{ name: 'scripted', type: 'openai', baseUrl: `${upstreamUrl}/v1`, apiKey: 'sk-upstream' }],
      models: [{ name: SCRIPTED_AGENT_MODEL, deployments: [{ provider: 'scripted', model: 'upstream-model' }] }],
      retries: { attempts: 1 },
    }),
  );
  return file;
}

/** The settings that point the agent of an all-in-one platform at the scripted upstream. */
export function scriptedModelEnv(dir: string, upstreamUrl: string): Record<string, string> {
  return {
    LLM_GATEWAY_ROUTING_FILE: writeScriptedRouting(dir, upstreamUrl),
    AGENT_MODEL: SCRIPTED_AGENT_MODEL,
    AGENT_MODEL_HIGH_PERFORMANCE: SCRIPTED_AGENT_MODEL,
  };
}
