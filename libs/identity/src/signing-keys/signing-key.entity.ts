import { Check, Column, Entity, PrimaryColumn } from 'typeorm';

/** The public half of a signing key as published in the JWKS (spec document 1). */
export interface PublicSigningJwk {
  kty: 'RSA';
  kid: string;
  use: 'sig';
  alg: 'RS256';
  n: string;
  e: string;
}

/** Published from creation, signs from `activatesAt` to `retiredAt`, published until `expiresAt` or `revokedAt`. */
@Entity({ schema: 'identity', name: 'signing_keys' })
@Check('signing_keys_alg', `"alg" = 'RS256'`)
@Check('signing_keys_retired_after_activation', `"retired_at" IS NULL OR "retired_at" >= "activates_at"`)
@Check(
  'signing_keys_expires_after_retirement',
  `"expires_at" IS NULL OR ("retired_at" IS NOT NULL AND "expires_at" >= "retired_at")`,
)
export class SigningKeyEntity {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'signing_keys_pkey' })
  kid!: string;

  @Column({ type: 'text' })
  alg!: 'RS256';

  @Column({ type: 'jsonb' })
  publicJwk!: PublicSigningJwk;

  /** PKCS#8, sealed with KEY_ENCRYPTION_KEY (key-encryption.ts). */
  @Column({ type: 'bytea' })
  privateKeyCiphertext!: Buffer;

  @Column({ type: 'timestamptz' })
  createdAt!: Date;

  @Column({ type: 'timestamptz' })
  activatesAt!: Date;

  @Column({ type: 'timestamptz', nullable: true })
  retiredAt!: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  expiresAt!: Date | null;

  /** Withdrawn in an emergency (`platformctl keys revoke`): out of the JWKS at once, never signs again. */
  @Column({ type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;
}
