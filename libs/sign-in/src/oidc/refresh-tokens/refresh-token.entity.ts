import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { TokenFamilyEntity } from './token-family.entity';

/**
 * One refresh token of a family (every token descended from one login). Only the
 * SHA-256 of the token is kept. A token is used once: its refresh marks it used and issues the next
 * one; presenting a used token revokes the whole family, access tokens included.
 */
@Entity({ schema: 'identity', name: 'refresh_tokens' })
@Index('refresh_tokens_family_id_idx', ['familyId'])
@Index('refresh_tokens_expires_at_idx', ['expiresAt'])
// Sign-out finds the families of one browser session.
@Index('refresh_tokens_session_id_idx', ['sessionId'])
export class RefreshTokenEntity {
  @PrimaryColumn({ type: 'bytea', primaryKeyConstraintName: 'refresh_tokens_pkey' })
  tokenHash!: Buffer;

  /** The provider's grant id of the login the family descends from. */
  @Column({ type: 'text' })
  familyId!: string;

  // A token always has its family's row, so the row lock guards every token; tokens go with it.
  @ManyToOne(() => TokenFamilyEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'family_id', foreignKeyConstraintName: 'refresh_tokens_family_id_fkey' })
  family?: TokenFamilyEntity;

  @Column({ type: 'text' })
  clientId!: string;

  @Column({ type: 'uuid' })
  userId!: string;

  @Column({ type: 'text' })
  scope!: string;

  /** The resource (RFC 8707) the login's access tokens are issued for, their `aud`; null: `broker`. */
  @Column({ type: 'text', nullable: true })
  resource!: string | null;

  /** `sid`: the browser session of the login. */
  @Column({ type: 'text' })
  sessionId!: string;

  /** `auth_time`, Unix seconds, to the millisecond (a session cut-off is compared with it). */
  @Column({ type: 'double precision' })
  authTime!: number;

  /** `jti` and expiry of the access token issued with this refresh token (revoked with the family). */
  @Column({ type: 'text' })
  accessTokenId!: string;

  @Column({ type: 'timestamptz' })
  accessExpiresAt!: Date;

  @Column({ type: 'timestamptz' })
  issuedAt!: Date;

  @Column({ type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ type: 'timestamptz', nullable: true })
  usedAt!: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;
}
