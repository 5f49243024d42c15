import { MemoryError } from '../memory.errors';
import { type MemoryQuota, PLATFORM_BUCKET, type QuotaState, quotaHeaders } from '../memory-quota';
import { type MemoryHit, type MemorySearch } from '../memory-search';

/** Results of the admin API's query. */
export const QUERY_RESULTS = 10;

export interface MemoryQueryInput {
  /** Null: a token without a tenant (counted in the platform bucket; sees shared items only). */
  tenantId: string | null;
  query: string;
  orgId?: string;
  jobRole?: string;
}

/** `POST /v1/admin/memory/query`: counted against the tenant's monthly quota, then searched. */
export class MemoryQueryService {
  constructor(
    private readonly search: MemorySearch,
    private readonly quota: MemoryQuota,
  ) {}

  /** The hits and the quota; MemoryError (with the quota's headers) when refused or when upstream failed. */
  async query(input: MemoryQueryInput): Promise<{ hits: MemoryHit[]; quota: QuotaState }> {
    const bucket = input.tenantId ?? PLATFORM_BUCKET;
    const { granted, state: taken } = await this.quota.take(bucket);
    if (!granted) {
      throw new MemoryError('monthly_quota_exceeded', 'the monthly shared-memory query quota is spent').withHeaders(
        quotaHeaders(taken),
      );
    }
    try {
      const hits = await this.search.search({
        tenantId: input.tenantId,
        orgId: input.orgId,
        jobRole: input.jobRole,
        text: input.query,
        limit: QUERY_RESULTS,
      });
      return { hits, quota: taken };
    } catch (error) {
      // A query that found nothing for the caller (upstream or the database failed) does not count.
      const state = await this.quota.giveBack(bucket, taken).catch(() => taken);
      if (error instanceof MemoryError) throw error.withHeaders(quotaHeaders(state));
      throw error;
    }
  }
}
