import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type ProfileRecord } from './user-profile.dto';

/** A change of the profile: an absent field is kept; `bio: null` clears it. */
export interface ProfileChanges {
  displayName?: string;
  bio?: string | null;
}

interface ProfileRow extends Omit<ProfileRecord, 'tenant'> {
  tenantName: string;
  tenantType: ProfileRecord['tenant']['type'];
  tenantId: string;
}

@Injectable()
export class UserProfileRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** One statement; null when the user is absent or their fields come from their tenant's identity provider. */
  async update(userId: string, changes: ProfileChanges, at: Date): Promise<ProfileRecord | null> {
    const rows = (await this.dataSource.query(
      `UPDATE "identity"."users" AS "user"
          SET "display_name" = COALESCE($2, "user"."display_name"),
              "bio" = CASE WHEN $3::boolean THEN $4 ELSE "user"."bio" END,
              "updated_at" = $5
         FROM "identity"."tenants" AS "tenant"
        WHERE "user"."id" = $1 AND "user"."idp_subject" IS NULL AND "tenant"."id" = "user"."tenant_id"
    RETURNING "user"."id", "user"."email", "user"."username", "user"."email_verified" AS "emailVerified",
              "user"."display_name" AS "displayName", "user"."role", "user"."status", "user"."organization",
              "user"."job", "user"."bio", "user"."created_at" AS "createdAt", "user"."last_login_at" AS "lastLoginAt",
              "tenant"."id" AS "tenantId", "tenant"."type" AS "tenantType", "tenant"."name" AS "tenantName"`,
      [userId, changes.displayName ?? null, changes.bio !== undefined, changes.bio ?? null, at],
    )) as [ProfileRow[], number];
    const [updated] = rows;
    const row = updated[0];
    if (!row) return null;
    const { tenantId, tenantType, tenantName, ...user } = row;
    return { ...user, tenant: { id: tenantId, type: tenantType, name: tenantName } };
  }
}
