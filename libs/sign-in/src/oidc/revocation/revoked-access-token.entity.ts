import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** A revoked access token (`jti`), kept until it would have expired anyway. */
@Entity({ schema: 'identity', name: 'revoked_access_tokens' })
@Index('revoked_access_tokens_expires_at_idx', ['expiresAt'])
export class RevokedAccessTokenEntity {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'revoked_access_tokens_pkey' })
  jti!: string;

  @Column({ type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ type: 'timestamptz' })
  revokedAt!: Date;
}
