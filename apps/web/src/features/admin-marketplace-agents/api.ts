import { ApiRequestError, apiJson } from '../../lib/api';

/** An agent as `/api/v1/admin/marketplace-agents` answers it (docs/marketplace.md, "Agents over HTTP"). */
export interface MarketplaceAgent {
  agentId: string;
  name: string;
  instructions: string;
  /** null: AGENT_MODEL. */
  model: string | null;
  /** null: the provider's default. */
  temperature: number | null;
  /** null: the provider's default. */
  maxOutputTokens: number | null;
  enabled: boolean;
  /** null: every service account of the deployment may use it. */
  tenantId: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface AgentPage {
  agents: MarketplaceAgent[];
  total: number;
  limit: number;
  page: number;
  hasMore: boolean;
}

export interface AgentFilters {
  /** A substring of the id or the name, any case. */
  search?: string;
  enabled?: boolean;
}

/**
 * The body's number fields are sent as typed: a text that is not a number goes as text, so that the API refuses it
 * with its rule's message (shown at the field), as it refuses a number out of range.
 */
export type NumberInput = number | string;

/** `POST`: every field the DTO takes (`agentId` absent: the API makes a UUID). */
export interface NewAgent {
  agentId?: string;
  name: string;
  instructions: string;
  model?: string;
  temperature?: NumberInput;
  maxOutputTokens?: NumberInput;
  enabled?: boolean;
  tenantId?: string;
}

/** `PATCH`: the fields given change; `null` resets an optional one (model, temperature, max tokens, tenant). */
export interface AgentChanges {
  name?: string;
  instructions?: string;
  model?: string | null;
  temperature?: NumberInput | null;
  maxOutputTokens?: NumberInput | null;
  enabled?: boolean;
  tenantId?: string | null;
}

export const AGENTS_KEY = ['admin', 'marketplace-agents'] as const;
export const PAGE_SIZE = 25;

const BASE = '/api/v1/admin/marketplace-agents';
const agent = (agentId: string) => `${BASE}/${encodeURIComponent(agentId)}`;
const json = (method: string, body?: unknown): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json' },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  cache: 'no-store',
});

export function listAgents(token: string, filters: AgentFilters, page: number): Promise<AgentPage> {
  const query = new URLSearchParams({ limit: String(PAGE_SIZE), page: String(page) });
  if (filters.search) query.set('search', filters.search);
  if (filters.enabled !== undefined) query.set('enabled', String(filters.enabled));
  return apiJson<AgentPage>(`${BASE}?${query}`, token, { cache: 'no-store' });
}

export function createAgent(token: string, body: NewAgent): Promise<MarketplaceAgent> {
  return apiJson<MarketplaceAgent>(BASE, token, json('POST', body));
}

export function updateAgent(token: string, agentId: string, changes: AgentChanges): Promise<MarketplaceAgent> {
  return apiJson<MarketplaceAgent>(agent(agentId), token, json('PATCH', changes));
}

export function deleteAgent(token: string, agentId: string): Promise<unknown> {
  return apiJson(agent(agentId), token, json('DELETE'));
}

/**
 * A number typed in a field: its value when it reads as one (a decimal comma too, `0,5`, as many languages write
 * it), the text otherwise (the API refuses it with its rule).
 */
export function numberInput(text: string): NumberInput {
  const trimmed = text.trim();
  const value = Number(/^\d+,\d+$/.test(trimmed) ? trimmed.replace(',', '.') : trimmed);
  return trimmed !== '' && Number.isFinite(value) ? value : text;
}

export type AgentField =
  'agentId' | 'name' | 'instructions' | 'model' | 'temperature' | 'maxOutputTokens' | 'tenantId' | 'enabled';

// The API names the refused field in its message only (the rules of libs/agent's agent.rules.ts and the catalog's
// name and instructions rules): first match wins. 409 is the id taken (by a live agent or a deleted one).
const FIELD_WORDS: [AgentField, RegExp][] = [
  ['agentId', /\bagent id\b|^the id \S+ is taken|^agentId\b/],
  ['maxOutputTokens', /max output tokens|maxOutputTokens/],
  ['temperature', /temperature/],
  ['tenantId', /tenant/],
  ['model', /^a model\b|^model\b/],
  ['instructions', /^instructions\b/],
  ['name', /^a name\b|^name\b/],
  ['enabled', /^enabled\b/],
];

/** The form field a refusal of the API is about, or undefined (the form shows it above its buttons). */
export function agentFieldOf(error: unknown): AgentField | undefined {
  if (!(error instanceof ApiRequestError)) return undefined;
  if (error.status === 409) return 'agentId';
  if (error.status !== 400) return undefined;
  return FIELD_WORDS.find(([, words]) => words.test(error.message))?.[0];
}
