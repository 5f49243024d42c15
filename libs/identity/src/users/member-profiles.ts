import { isUuid } from '@fed/contracts';
import { type DataSource } from 'typeorm';

/** What of a user decides which organization and role items of the shared memory they see and write. */
export interface MemberProfile {
  orgId?: string;
  jobRole?: string;
}

/** The user's organization and job type codes, read at each call (an admin may change them between turns). */
export class MemberProfiles {
  constructor(private readonly dataSource: DataSource) {}

  async of(userId: string): Promise<MemberProfile> {
    // A service account's subject is no user id; comparing as uuid keeps the key's index.
    if (!isUuid(userId)) return {};
    const [row] = (await this.dataSource.query(
      `SELECT "organization"->>'id' AS "org_id", "job"->>'id' AS "job_role" FROM "identity"."users" WHERE "id" = $1::uuid`,
      [userId],
    )) as { org_id: string | null; job_role: string | null }[];
    return {
      ...(row?.org_id ? { orgId: row.org_id } : {}),
      ...(row?.job_role ? { jobRole: row.job_role } : {}),
    };
  }
}
