import { apiJson } from '../../lib/api';

/** Document 3, "User" (as `GET /api/v1/admin/users` lists it). */
export interface AdminUser {
  userId: string;
  email: string;
  username: string;
  displayName?: string;
  emailVerified: boolean;
  role: 'admin' | 'user';
  status: 'unverified' | 'pending' | 'approved';
  organization?: { value: string; label: string };
  jobType?: { value: string; label: string };
  createdAt: string;
  lastLoginAt?: string;
}

export interface UserPage {
  users: AdminUser[];
  total: number;
  limit: number;
  page: number;
  hasMore: boolean;
}

/** The list's query as document 3 names it. */
export interface UserFilters {
  search?: string;
  role?: 'admin';
  isApproved?: 'true' | 'false';
  organization?: string;
  jobType?: string;
}

export interface MasterRecord {
  value: string;
  label: string;
}

export const USERS_KEY = ['admin', 'users'] as const;
export const PAGE_SIZE = 25;

export function listUsers(token: string, filters: UserFilters, page: number, limit = PAGE_SIZE): Promise<UserPage> {
  const query = new URLSearchParams({ limit: String(limit), page: String(page) });
  if (filters.search) query.set('search', filters.search);
  if (filters.role) query.set('role', filters.role);
  if (filters.isApproved) query.set('is_approved', filters.isApproved);
  if (filters.organization) query.set('organization', filters.organization);
  if (filters.jobType) query.set('job_type', filters.jobType);
  return apiJson<UserPage>(`/api/v1/admin/users?${query}`, token);
}

const user = (userId: string) => `/api/v1/admin/users/${encodeURIComponent(userId)}`;
const json = (method: string, body?: unknown): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json' },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
});

export type UserAction = 'approve' | 'reject' | 'promote' | 'demote' | 'delete';

export function runUserAction(token: string, userId: string, action: UserAction): Promise<unknown> {
  switch (action) {
    case 'approve':
      return apiJson(`${user(userId)}/approve`, token, json('POST', {}));
    case 'reject':
      return apiJson(`${user(userId)}/reject`, token, json('POST', {}));
    case 'promote':
      return apiJson(`${user(userId)}/role`, token, json('PUT', { role: 'admin' }));
    case 'demote':
      return apiJson(`${user(userId)}/role`, token, json('PUT', { role: 'user' }));
    case 'delete':
      return apiJson(user(userId), token, json('DELETE'));
  }
}

/** Document 2's master data lists (any signed-in user may read them), for the filters. */
export async function listMasterData(
  token: string,
): Promise<{ organizations: MasterRecord[]; jobTypes: MasterRecord[] }> {
  const [organizations, jobTypes] = await Promise.all([
    apiJson<{ organizations: { code: string; label: string }[] }>('/api/v1/organizations', token),
    apiJson<{ jobTypes: { code: string; label: string }[] }>('/api/v1/job-types', token),
  ]);
  return {
    organizations: organizations.organizations.map((o) => ({ value: o.code, label: o.label })),
    jobTypes: jobTypes.jobTypes.map((j) => ({ value: j.code, label: j.label })),
  };
}
