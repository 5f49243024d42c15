import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { ClientEntity, UserEntity } from '@fed/identity/internal';

/** The consent screen is shown again, with every scope, once the application has a scope not in this list. */
@Entity({ schema: 'identity', name: 'consents' })
export class ConsentEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'consents_pkey' })
  userId!: string;

  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'consents_pkey' })
  clientId!: string;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'consents_user_id_fkey' })
  user?: UserEntity;

  @ManyToOne(() => ClientEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'client_id', foreignKeyConstraintName: 'consents_client_id_fkey' })
  client?: ClientEntity;

  @Column({ type: 'text', array: true })
  scopes!: string[];

  @Column({ type: 'timestamptz' })
  grantedAt!: Date;
}
