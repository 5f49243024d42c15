import { ApiRequestError, apiJson } from '../../lib/api';

/** Organizations or job types (docs/admin.md, "Master data"). */
export type MasterKind = 'organizations' | 'jobTypes';

/** A record as `GET /api/v1/admin/organizations` lists it. */
export interface MasterEntry {
  code: string;
  label: string;
  /** The platform operator's entry: every tenant sees it, none changes it (403 `platform_entry_read_only`). */
  platformWide: boolean;
  createdAt: string;
  updatedAt: string;
}

const PATHS: Record<MasterKind, string> = {
  organizations: '/api/v1/admin/organizations',
  jobTypes: '/api/v1/admin/job-types',
};

export const masterKey = (kind: MasterKind) => ['admin', 'master-data', kind] as const;
/** The users screen's filter lists (its own query of the users' lists). */
export const USERS_MASTER_KEY = ['master-data'] as const;

const json = (method: string, body?: unknown): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json' },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
});

const entry = (kind: MasterKind, code: string) => `${PATHS[kind]}/${encodeURIComponent(code)}`;

/** Not paginated: the caller's tenant's entries and the platform-wide ones, by code. */
export async function listMaster(token: string, kind: MasterKind): Promise<MasterEntry[]> {
  const body = await apiJson<Partial<Record<MasterKind, MasterEntry[]>>>(PATHS[kind], token);
  return body[kind] ?? [];
}

export function createMaster(token: string, kind: MasterKind, code: string, label: string): Promise<MasterEntry> {
  return apiJson<MasterEntry>(PATHS[kind], token, json('POST', { code, label }));
}

/** A code is never changed (users carry it): only the label. */
export function relabelMaster(token: string, kind: MasterKind, code: string, label: string): Promise<MasterEntry> {
  return apiJson<MasterEntry>(entry(kind, code), token, json('PATCH', { label }));
}

/** 409 `conflict` while users still carry the code. */
export function deleteMaster(token: string, kind: MasterKind, code: string): Promise<unknown> {
  return apiJson(entry(kind, code), token, json('DELETE'));
}

/** Which field of the create form a refusal is about: a taken code (409) or the field its message names. */
export function refusedField(error: Error): 'code' | 'label' | undefined {
  if (!(error instanceof ApiRequestError)) return undefined;
  if (error.status === 409) return 'code';
  if (error.code !== 'invalid_parameter') return undefined;
  if (error.message.startsWith('code')) return 'code';
  if (error.message.startsWith('label')) return 'label';
  return undefined;
}
