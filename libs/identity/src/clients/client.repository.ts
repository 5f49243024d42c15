import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { modifyReturning } from '@fed/persistence';
import { type TenantEntity } from '../tenants/tenant.entity';
import { tenantNamed } from '../tenants/tenant.repository';
import { ClientEntity } from './client.entity';

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

  async updateRedirectUris(
    clientId: string,
    uris: { redirectUris?: string[]; postLogoutRedirectUris?: string[] },
    at: Date,
  ): Promise<boolean> {
    const result = await this.dataSource.manager.update(ClientEntity, { clientId }, { ...uris, updatedAt: at });
    return result.affected === 1;
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
