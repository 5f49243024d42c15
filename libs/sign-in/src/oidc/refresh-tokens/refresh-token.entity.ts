import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { TokenFamilyEntity } from './token-family.entity';

/** Only the SHA-256 is kept. A used token presented again revokes the whole family, access tokens included. */
@Entity({ schema: 'identity', name: 'refresh_tokens' })
@Index('refresh_tokens_family_id_idx', ['familyId'])
@Index('refresh_tokens_expires_at_idx', ['expiresAt'])
// Sign-out finds the families of one browser session.
@Index('refresh_tokens_session_id_idx', ['sessionId'])
export class RefreshTokenEntity {
  @PrimaryColumn({ type: 'bytea', primaryKeyConstraintName: 'refresh_tokens_pkey' })
  tokenHash!: Buffer;

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

  /** The RFC 8707 resource (`aud`) of the login's access tokens; null: `broker`. */
  @Column({ type: 'text', nullable: true })
  resource!: string | null;

  /** `sid`: the browser session of the login. */
  @Column({ type: 'text' })
  sessionId!: string;

  /** Unix seconds to the millisecond, for comparing with a session cut-off. */
  @Column({ type: 'double precision' })
  authTime!: number;

  /** Revoked with the family. */
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
