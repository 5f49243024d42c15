import { isAgentId, isPrintableLine, isUuid } from '@fed/contracts';
import { catalogInstructions, catalogName } from '../catalog/catalog.rules';
import { CatalogError } from '../catalog/catalog.errors';
import { AgentsError } from './agents.errors';
import { type AgentModelConfig } from './marketplace-agent.entity';

// Marketplace agent field rules; name and instructions follow the catalog's.

export const MODEL_NAME_MAX = 200;
export const TEMPERATURE_MAX = 2;
export const MAX_OUTPUT_TOKENS_MAX = 1_000_000;

/** Each rule's refusal, the same from `platformctl agents` and from the HTTP API's DTOs. */
export const AGENT_RULE_MESSAGES = {
  id: 'an agent id is 1-64 characters of A-Z, a-z, 0-9, _ and -',
  tenantId: 'a tenant is named by its id (a UUID)',
  model: `a model is 1-${MODEL_NAME_MAX} characters on one line`,
  temperature: `a temperature is a number from 0 to ${TEMPERATURE_MAX}`,
  maxOutputTokens: `max output tokens is an integer from 1 to ${MAX_OUTPUT_TOKENS_MAX.toLocaleString('en')}`,
} as const;

export function agentId(value: string): string {
  if (!isAgentId(value)) {
    throw new AgentsError('invalid_agent_id', AGENT_RULE_MESSAGES.id);
  }
  return value;
}

function fromCatalog(code: 'invalid_name' | 'invalid_instructions', check: () => string): string {
  try {
    return check();
  } catch (error) {
    if (error instanceof CatalogError) throw new AgentsError(code, error.message);
    throw error;
  }
}

export const agentName = (value: string): string => fromCatalog('invalid_name', () => catalogName(value));
export const agentInstructions = (value: string): string =>
  fromCatalog('invalid_instructions', () => catalogInstructions(value));

export function agentTenant(value: string): string {
  if (!isUuid(value)) throw new AgentsError('invalid_tenant', AGENT_RULE_MESSAGES.tenantId);
  return value.toLowerCase();
}

/** Checks each given field of a model configuration; `undefined` fields are left out. */
export function agentModelConfig(config: AgentModelConfig): AgentModelConfig {
  const checked: AgentModelConfig = {};
  if (config.model !== undefined) {
    const model = config.model.trim();
    if (model.length === 0 || model.length > MODEL_NAME_MAX || !isPrintableLine(model)) {
      throw new AgentsError('invalid_model', AGENT_RULE_MESSAGES.model);
    }
    checked.model = model;
  }
  if (config.temperature !== undefined) {
    const { temperature } = config;
    if (!Number.isFinite(temperature) || temperature < 0 || temperature > TEMPERATURE_MAX) {
      throw new AgentsError('invalid_temperature', AGENT_RULE_MESSAGES.temperature);
    }
    checked.temperature = temperature;
  }
  if (config.maxOutputTokens !== undefined) {
    const tokens = config.maxOutputTokens;
    if (!Number.isSafeInteger(tokens) || tokens < 1 || tokens > MAX_OUTPUT_TOKENS_MAX) {
      throw new AgentsError('invalid_max_output_tokens', AGENT_RULE_MESSAGES.maxOutputTokens);
    }
    checked.maxOutputTokens = tokens;
  }
  return checked;
}
