import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** `uploading`: the row was written before the bytes; a row still uploading after the sweep age is swept with its blob. */
export type FileState = 'uploading' | 'stored';

/** An uploaded file (`POST /v1/files`): its bytes live in the blob store under `blobKey`. */
@Entity({ schema: 'conversations', name: 'files' })
@Index('files_owner_created_idx', ['userId', 'createdAt', 'id'], { where: `"state" = 'stored'` })
@Index('files_uploading_idx', ['touchedAt'], { where: `"state" = 'uploading'` })
// Marketplace: a service account's files across its agents (split_part of the owner key; the migration's).
@Index('files_account_created_idx', { synchronize: false })
export class FileEntity {
  /** `fileId`. */
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'files_pkey' })
  id!: string;

  @Column({ type: 'text' })
  userId!: string;

  @Column({ type: 'text', nullable: true })
  tenantId!: string | null;

  @Column({ type: 'text' })
  filename!: string;

  @Column({ type: 'bigint', default: 0 })
  bytes!: string;

  @Column({ type: 'text', default: 'application/octet-stream' })
  mimeType!: string;

  /** Pixels, images only. */
  @Column({ type: 'integer', nullable: true })
  width!: number | null;

  @Column({ type: 'integer', nullable: true })
  height!: number | null;

  @Column({ type: 'text' })
  blobKey!: string;

  @Column({ type: 'text', default: 'uploading' })
  state!: FileState;

  @Column({ type: 'timestamptz' })
  createdAt!: Date;

  /** Refreshed while an upload's bytes arrive: the sweep takes only uploads silent for its whole age. */
  @Column({ type: 'timestamptz', default: () => 'now()' })
  touchedAt!: Date;
}
