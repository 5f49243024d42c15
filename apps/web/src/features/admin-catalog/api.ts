import { ApiRequestError, apiJson } from '../../lib/api';

/** A tool of a server as `GET /api/v1/admin/tool-servers` lists it (docs/tool-servers.md, "Over HTTP"). */
export interface ServerTool {
  name: string;
  description: string;
  allowed: boolean;
  /** False for an allowed tool the server's last listing no longer has. */
  offered: boolean;
  agentToolName: string | null;
}

export interface ToolServer {
  name: string;
  url: string;
  auth: 'set' | 'none';
  enabled: boolean;
  state: 'ready' | 'failing' | 'disabled';
  timeoutSeconds: number;
  allowedTools: string[];
  tools: ServerTool[];
  lastRefreshedAt: string | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface NewToolServer {
  name: string;
  url: string;
  allowedTools: string[];
  authHeader?: string;
  timeoutSeconds?: number;
}

/** The catalog's three kinds (docs/admin.md, "Catalog and library over HTTP"). */
export type CatalogKind = 'personas' | 'playbooks' | 'skills';

/** A persona, playbook or skill in one shape: `id` is its key or id, `enabled` its `active` or `available`. */
export interface CatalogEntry {
  id: string;
  name: string;
  description: string;
  instructions: string;
  /** Undefined for personas, which are always offered. */
  enabled?: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface Page<T> {
  items: T[];
  total: number;
  limit: number;
  page: number;
  hasMore: boolean;
}

export const PAGE_SIZE = 25;
export const TOOL_SERVERS_KEY = ['admin', 'tool-servers'] as const;
export const catalogKey = (kind: CatalogKind) => ['admin', 'catalog', kind] as const;

const json = (method: string, body?: unknown): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json' },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
});

const server = (name: string) => `/api/v1/admin/tool-servers/${encodeURIComponent(name)}`;

export async function listToolServers(token: string, page: number): Promise<Page<ToolServer>> {
  const body = await apiJson<Omit<Page<ToolServer>, 'items'> & { toolServers: ToolServer[] }>(
    `/api/v1/admin/tool-servers?limit=${PAGE_SIZE}&page=${page}`,
    token,
  );
  return { ...body, items: body.toolServers };
}

export function addToolServer(token: string, input: NewToolServer): Promise<ToolServer> {
  return apiJson<ToolServer>('/api/v1/admin/tool-servers', token, json('POST', input));
}

export function setAllowedTools(token: string, name: string, allowedTools: string[]): Promise<ToolServer> {
  return apiJson<ToolServer>(server(name), token, json('PATCH', { allowedTools }));
}

/** 502 `upstream_api_error` when the server does not answer; the server is then `failing` with the reason. */
export function refreshToolServer(token: string, name: string): Promise<ToolServer> {
  return apiJson<ToolServer>(`${server(name)}/refresh`, token, json('POST', {}));
}

export function removeToolServer(token: string, name: string): Promise<unknown> {
  return apiJson(server(name), token, json('DELETE'));
}

/** How each kind names its records and its on-off field. */
const SHAPES = {
  personas: { list: 'personas', id: 'personaKey', enabled: undefined },
  playbooks: { list: 'playbooks', id: 'playbookId', enabled: 'active' },
  skills: { list: 'skills', id: 'skillId', enabled: 'available' },
} as const;

export function hasEnabledFlag(kind: CatalogKind): boolean {
  return SHAPES[kind].enabled !== undefined;
}

function toEntry(kind: CatalogKind, record: Record<string, unknown>): CatalogEntry {
  const shape = SHAPES[kind];
  return {
    id: String(record[shape.id]),
    name: String(record['name']),
    description: String(record['description'] ?? ''),
    instructions: String(record['instructions'] ?? ''),
    enabled: shape.enabled === undefined ? undefined : record[shape.enabled] === true,
    createdAt: String(record['createdAt']),
    updatedAt: String(record['updatedAt']),
  };
}

export async function listCatalog(
  token: string,
  kind: CatalogKind,
  page: number,
  limit: number = PAGE_SIZE,
): Promise<Page<CatalogEntry>> {
  const body = await apiJson<Omit<Page<unknown>, 'items'> & Record<string, unknown>>(
    `/api/v1/admin/${kind}?limit=${limit}&page=${page}`,
    token,
  );
  const records = (body[SHAPES[kind].list] ?? []) as Record<string, unknown>[];
  return {
    items: records.map((record) => toEntry(kind, record)),
    total: body.total,
    limit: body.limit,
    page: body.page,
    hasMore: body.hasMore,
  };
}

/** The API's largest page (ADMIN_PAGE.maxLimit). */
const MAX_LIMIT = 100;
/** At most this many pages are read for one list (10,000 records; the catalog holds a few dozen). */
const MAX_PAGES = 100;

/**
 * Every record of the kind in name order: the admin lists take no search, so the screen searches what it read.
 * Pages are read one after another until the API says there is no more.
 */
export async function listAllCatalog(token: string, kind: CatalogKind): Promise<CatalogEntry[]> {
  const entries: CatalogEntry[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const body = await listCatalog(token, kind, page, MAX_LIMIT);
    entries.push(...body.items);
    if (!body.hasMore || body.items.length === 0) break;
  }
  return entries;
}

/** The form fields a refusal can name. */
export type CatalogField = 'personaKey' | 'name' | 'description' | 'instructions' | 'enabled';

// The envelope names no field: the message's first words do (libs/agent/src/catalog/catalog.rules.ts,
// catalog-admin.service.ts and the DTOs' `active`/`available` refusal).
const FIELD_WORDS: readonly [CatalogField, RegExp][] = [
  ['personaKey', /^a persona (key|with the key|needs a key)\b/i],
  ['name', /^a name\b/i],
  ['description', /^a description\b/i],
  ['instructions', /^instructions\b/i],
  ['enabled', /^(active|available) must\b/i],
];

/** The field a 400 or 409 of a create or change is about, if its message names one. */
export function catalogFieldOf(error: unknown): CatalogField | undefined {
  if (!(error instanceof ApiRequestError) || (error.status !== 400 && error.status !== 409)) return undefined;
  return FIELD_WORDS.find(([, words]) => words.test(error.message))?.[0];
}

export interface CatalogFields {
  name?: string;
  description?: string;
  instructions?: string;
  enabled?: boolean;
}

function bodyOf(kind: CatalogKind, fields: CatalogFields): Record<string, unknown> {
  const { enabled, ...text } = fields;
  const flag = SHAPES[kind].enabled;
  return { ...text, ...(flag === undefined || enabled === undefined ? {} : { [flag]: enabled }) };
}

/** A persona's key is chosen on creation (`personaKey`); playbooks and skills get an id. */
export async function createCatalogEntry(
  token: string,
  kind: CatalogKind,
  fields: CatalogFields & { personaKey?: string },
): Promise<CatalogEntry> {
  const { personaKey, ...rest } = fields;
  const body = { ...(kind === 'personas' ? { personaKey } : {}), ...bodyOf(kind, rest) };
  return toEntry(kind, await apiJson(`/api/v1/admin/${kind}`, token, json('POST', body)));
}

export async function updateCatalogEntry(
  token: string,
  kind: CatalogKind,
  id: string,
  fields: CatalogFields,
): Promise<CatalogEntry> {
  const path = `/api/v1/admin/${kind}/${encodeURIComponent(id)}`;
  return toEntry(kind, await apiJson(path, token, json('PATCH', bodyOf(kind, fields))));
}

export function deleteCatalogEntry(token: string, kind: CatalogKind, id: string): Promise<unknown> {
  return apiJson(`/api/v1/admin/${kind}/${encodeURIComponent(id)}`, token, json('DELETE'));
}
