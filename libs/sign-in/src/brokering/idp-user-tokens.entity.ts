import { Column, Entity, JoinColumn, OneToOne, PrimaryColumn } from 'typeorm';
import { UserEntity } from '@fed/identity/internal';

/** Kept so userinfo can ask the upstream for fresh attributes; sealed and bound to the user. */
@Entity({ schema: 'identity', name: 'idp_user_tokens' })
export class IdpUserTokensEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'idp_user_tokens_pkey' })
  userId!: string;

  @OneToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'idp_user_tokens_user_id_fkey' })
  user?: UserEntity;

  @Column({ type: 'bytea' })
  accessTokenCiphertext!: Buffer;

  @Column({ type: 'bytea', nullable: true })
  refreshTokenCiphertext!: Buffer | null;

  /** When the upstream said the access token expires; null when it did not say. */
  @Column({ type: 'timestamptz', nullable: true })
  accessExpiresAt!: Date | null;

  @Column({ type: 'timestamptz' })
  updatedAt!: Date;
}
