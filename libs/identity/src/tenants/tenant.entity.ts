import { Check, Column, Entity, PrimaryColumn, Unique } from 'typeorm';

export const tenantTypes = ['enterprise', 'saas'] as const;
export type TenantType = (typeof tenantTypes)[number];

/** A customer organization; its id, type and endpoint are the `tenant.*` claims of every token. */
@Entity({ schema: 'identity', name: 'tenants' })
@Unique('tenants_name_key', ['name'])
@Check('tenants_type', `"type" IN ('enterprise', 'saas')`)
export class TenantEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'tenants_pkey' })
  id!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  type!: TenantType;

  /** `tenant.endpoint`: the tenant's base URL. */
  @Column({ type: 'text' })
  endpoint!: string;

  /** A disabled tenant's users get `unauthorized_client` at the token endpoint. */
  @Column({ type: 'boolean' })
  enabled!: boolean;

  @Column({ type: 'timestamptz' })
  createdAt!: Date;
}
