import { type NumberedPageParams } from '@fed/contracts';
import { MAX_CLOCK_SKEW_SECONDS } from '@fed/config';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { modifyReturning } from '@fed/persistence';
import { type TenantEntity } from '../tenants/tenant.entity';
import { tenantNamed } from '../tenants/tenant.repository';
import { ClientEntity } from './client.entity';

export interface ClientFilters {
  /** Case-insensitive substring of the client id or name. */
  search?: string;
  /** The tenant's name. */
  tenantName?: string;
}

/** An access token issued to a user of the client, still accepted somewhere (its `jti` and `exp`). */
export interface LiveAccessToken {
  jti: string;
  expiresAt: Date;
}

/** What must be told to every service once a client's tokens end: its users' live access tokens, its own. */
export interface EndedClientTokens {
  serviceAccountId: string;
  accessTokens: LiveAccessToken[];
}

type ClientColumns = Partial<
  Pick<
    ClientEntity,
    'name' | 'redirectUris' | 'postLogoutRedirectUris' | 'scopes' | 'consentRequired' | 'enabled' | 'updatedAt'
  >
>;

// LIKE's wildcards and its escape character, matched literally.
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);

const FAMILIES = '"identity"."token_families"';
const TOKENS = '"identity"."refresh_tokens"';

@Injectable()
export class ClientRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** One query (findOne with a relation makes two: a DISTINCT of the ids, then the rows). */
  find(clientId: string): Promise<ClientEntity | null> {
    return this.dataSource.manager
      .createQueryBuilder(ClientEntity, 'client')
      .leftJoinAndSelect('client.tenant', 'tenant')
      .where('client.clientId = :clientId', { clientId })
      .getOne();
  }

  any(): Promise<boolean> {
    return this.dataSource.manager.exists(ClientEntity);
  }

  list(): Promise<ClientEntity[]> {
    return this.dataSource.manager.find(ClientEntity, { order: { clientId: 'ASC' }, relations: { tenant: true } });
  }

  tenantNamed(name: string, defaultEndpoint: string): Promise<TenantEntity | null> {
    return tenantNamed(this.dataSource.manager, name, defaultEndpoint);
  }

  /** False when the id was taken (atomic: no read-then-write race). */
  async insert(client: ClientEntity): Promise<boolean> {
    const result = await this.dataSource.manager
      .createQueryBuilder()
      .insert()
      .into(ClientEntity)
      .values(client)
      .orIgnore()
      .returning('client_id')
      .execute();
    return result.raw.length === 1;
  }

  /** One statement, replacing only a metadata document's row (never an operator's), so concurrent fetches both land. */
  async upsertMetadataDocumentClient(client: ClientEntity): Promise<void> {
    await this.dataSource.manager.query(
      `INSERT INTO "identity"."clients" ("client_id", "name", "tenant_id", "secret_hash", "secret_rotated_at",
         "token_endpoint_auth_method", "registration", "metadata_expires_at", "redirect_uris",
         "post_logout_redirect_uris", "grant_types", "scopes", "publication_status", "consent_required",
         "require_pkce", "service_account_id", "enabled", "created_at", "updated_at")
       VALUES ($1, $2, NULL, NULL, $3, 'none', 'metadata_document', $4, $5, '{}', $6, $7, 'Published', true, true,
         $8, true, $3, $3)
       ON CONFLICT ("client_id") DO UPDATE SET "name" = EXCLUDED."name",
         "metadata_expires_at" = EXCLUDED."metadata_expires_at", "redirect_uris" = EXCLUDED."redirect_uris",
         "grant_types" = EXCLUDED."grant_types", "scopes" = EXCLUDED."scopes", "updated_at" = EXCLUDED."updated_at"
       WHERE "clients"."registration" = 'metadata_document'`,
      [
        client.clientId,
        client.name,
        client.createdAt,
        client.metadataExpiresAt,
        client.redirectUris,
        client.grantTypes,
        client.scopes,
        client.serviceAccountId,
      ],
    );
  }

  /**
   * Deletes unused self-registered clients in one statement: older than `unusedDays`, no token family left and no
   * sign-in under way. A metadata document's row also waits for expiry (it is refetched on next use); a dynamic
   * client must register again. Consents cascade.
   */
  async deleteUnusedSelfRegistered(unusedDays: number): Promise<number> {
    const rows = await modifyReturning<unknown>(
      this.dataSource,
      `DELETE FROM "identity"."clients" AS "client"
        WHERE "client"."created_at" < now() - make_interval(days => $1)
          AND ("client"."registration" = 'dynamic'
            OR ("client"."registration" = 'metadata_document' AND "client"."metadata_expires_at" < now()))
          AND NOT EXISTS (SELECT 1 FROM "identity"."token_families" AS "family"
                           WHERE "family"."client_id" = "client"."client_id")
          AND NOT EXISTS (SELECT 1 FROM "identity"."oidc_artifacts" AS "artifact"
                           WHERE "artifact"."model" IN ('AuthorizationCode', 'Grant', 'Interaction')
                             AND "artifact"."expires_at" > now()
                             AND "client"."client_id" IN ("artifact"."payload" ->> 'clientId',
                                                          "artifact"."payload" -> 'params' ->> 'client_id'))
        RETURNING 1`,
      [unusedDays],
    );
    return rows.length;
  }

  /** By client id; one query for the rows (joined with their tenant) and one for the count. */
  async page(filters: ClientFilters, page: NumberedPageParams): Promise<{ clients: ClientEntity[]; total: number }> {
    const query = this.dataSource.manager
      .createQueryBuilder(ClientEntity, 'client')
      .leftJoinAndSelect('client.tenant', 'tenant');
    if (filters.search !== undefined) {
      query.andWhere("(client.clientId ILIKE :pattern ESCAPE '\\' OR client.name ILIKE :pattern ESCAPE '\\')", {
        pattern: `%${likeLiteral(filters.search)}%`,
      });
    }
    if (filters.tenantName !== undefined)
      query.andWhere('tenant.name = :tenantName', { tenantName: filters.tenantName });
    const [clients, total] = await query
      .orderBy('client.clientId', 'ASC')
      .offset(page.offset)
      .limit(page.limit)
      .getManyAndCount();
    return { clients, total };
  }

  /**
   * Under the row's lock, so concurrent changes of one client apply one after the other, each checked against
   * the row as the other left it. `change` returns the columns to set, or throws; undefined: no such client.
   * Disabling it ends its sessions in the same transaction (`endSessionsWithin`).
   */
  async updateLocked(
    clientId: string,
    change: (existing: ClientEntity) => ClientColumns,
  ): Promise<{ client: ClientEntity; ended?: EndedClientTokens } | undefined> {
    return this.dataSource.transaction(async (manager) => {
      const locked = (await manager.query(`SELECT 1 FROM "identity"."clients" WHERE "client_id" = $1 FOR UPDATE`, [
        clientId,
      ])) as unknown[];
      if (locked.length === 0) return undefined;
      const existing = (await findWithin(manager, clientId)) as ClientEntity;
      const columns = change(existing);
      await manager.update(ClientEntity, { clientId }, columns);
      const ended =
        existing.enabled && columns.enabled === false
          ? { serviceAccountId: existing.serviceAccountId, accessTokens: await endSessionsWithin(manager, clientId) }
          : undefined;
      return { client: (await findWithin(manager, clientId)) as ClientEntity, ended };
    });
  }

  /**
   * One transaction: the client's sessions end (`endSessionsWithin`), then the client, its refresh-token families
   * (their tokens cascade) and its consents (cascade) go. Undefined: no such client.
   */
  async delete(clientId: string): Promise<EndedClientTokens | undefined> {
    return this.dataSource.transaction(async (manager) => {
      const [client] = (await manager.query(
        `SELECT "service_account_id" FROM "identity"."clients" WHERE "client_id" = $1 FOR UPDATE`,
        [clientId],
      )) as { service_account_id: string }[];
      if (!client) return undefined;
      const accessTokens = await endSessionsWithin(manager, clientId);
      await manager.query(`DELETE FROM "identity"."clients" WHERE "client_id" = $1`, [clientId]);
      await manager.query(`DELETE FROM ${FAMILIES} WHERE "client_id" = $1`, [clientId]);
      return { serviceAccountId: client.service_account_id, accessTokens };
    });
  }

  async updateSecret(clientId: string, secretHash: Buffer, at: Date): Promise<boolean> {
    const result = await this.dataSource.manager.update(
      ClientEntity,
      { clientId },
      { secretHash, secretRotatedAt: at, updatedAt: at },
    );
    return result.affected === 1;
  }
}

function findWithin(manager: EntityManager, clientId: string): Promise<ClientEntity | null> {
  return manager
    .createQueryBuilder(ClientEntity, 'client')
    .leftJoinAndSelect('client.tenant', 'tenant')
    .where('client.clientId = :clientId', { clientId })
    .getOne();
}

/**
 * Every session of the client ends: its refresh-token families are revoked (taking each family's row waits for a
 * refresh under way, so the tokens it issues are seen by the next statement), the access tokens recorded with
 * their refresh tokens that a service could still accept (exp plus the largest clock skew) are revoked in the
 * record userinfo reads, and its codes, grants and sign-ins under way go. Returns those access tokens, for the
 * services to be told.
 */
async function endSessionsWithin(manager: EntityManager, clientId: string): Promise<LiveAccessToken[]> {
  await manager.query(`UPDATE ${FAMILIES} SET "revoked_at" = coalesce("revoked_at", now()) WHERE "client_id" = $1`, [
    clientId,
  ]);
  const live = (await manager.query(
    `WITH "live" AS (
       SELECT DISTINCT "access_token_id" AS "jti", "access_expires_at" AS "expires_at" FROM ${TOKENS}
        WHERE "client_id" = $1 AND "access_expires_at" > now() - make_interval(secs => $2)
     ), "revoked" AS (
       INSERT INTO "identity"."revoked_access_tokens" ("jti", "expires_at", "revoked_at")
       SELECT "jti", "expires_at", now() FROM "live"
       ON CONFLICT ("jti") DO NOTHING
     ), "tokens" AS (
       UPDATE ${TOKENS} SET "revoked_at" = now() WHERE "client_id" = $1 AND "revoked_at" IS NULL
     )
     SELECT "jti", "expires_at" FROM "live"`,
    [clientId, MAX_CLOCK_SKEW_SECONDS],
  )) as { jti: string; expires_at: Date }[];
  await manager.query(
    `DELETE FROM "identity"."oidc_artifacts"
      WHERE "model" IN ('AuthorizationCode', 'Grant', 'Interaction')
        AND $1 IN ("payload" ->> 'clientId', "payload" -> 'params' ->> 'client_id')`,
    [clientId],
  );
  return live.map((row) => ({ jti: row.jti, expiresAt: new Date(row.expires_at) }));
}
