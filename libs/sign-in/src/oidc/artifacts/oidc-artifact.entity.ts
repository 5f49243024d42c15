import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** oidc-provider's sessions, interactions, grants and codes (the tokens are ours), keyed by model and id. */
@Entity({ schema: 'identity', name: 'oidc_artifacts' })
@Index('oidc_artifacts_grant_id_idx', ['grantId'], { where: '"grant_id" IS NOT NULL' })
@Index('oidc_artifacts_uid_idx', ['uid'], { where: '"uid" IS NOT NULL' })
@Index('oidc_artifacts_expires_at_idx', ['expiresAt'])
export class OidcArtifactEntity {
  /** The provider's model name: `Session`, `Interaction`, `Grant`, `AuthorizationCode`... */
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'oidc_artifacts_pkey' })
  model!: string;

  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'oidc_artifacts_pkey' })
  id!: string;

  @Column({ type: 'jsonb' })
  payload!: Record<string, unknown>;

  @Column({ type: 'text', nullable: true })
  grantId!: string | null;

  @Column({ type: 'text', nullable: true })
  uid!: string | null;

  @Column({ type: 'timestamptz' })
  expiresAt!: Date;

  /** Set once, atomically: a second exchange of the same code finds it already consumed. */
  @Column({ type: 'timestamptz', nullable: true })
  consumedAt!: Date | null;
}
