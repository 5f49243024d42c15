import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** `file`: bytes in the blob store (`library/<id>`); `prompt_template`: text in `content`. */
export type LibraryItemKind = 'file' | 'prompt_template';

/** Published files and prompt templates (`GET /v1/library`, SaaS only), platform-wide; attached by `filepath`. */
@Entity({ schema: 'agent', name: 'library_items' })
@Index('library_items_filepath_key', ['filepath'], { unique: true })
export class LibraryItemEntity {
  /** Also the `fileId` of the user message's `files[]` when the item is attached. */
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'library_items_pkey' })
  id!: string;

  @Column({ type: 'text' })
  filepath!: string;

  @Column({ type: 'text' })
  title!: string;

  @Column({ type: 'text' })
  kind!: LibraryItemKind;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  @Column({ type: 'text' })
  mimeType!: string;

  @Column({ type: 'bigint' })
  bytes!: string;

  @Column({ type: 'text', nullable: true })
  blobKey!: string | null;

  /** Prompt templates only: their text. */
  @Column({ type: 'text', nullable: true })
  content!: string | null;

  @Column({ type: 'timestamptz' })
  createdAt!: Date;

  @Column({ type: 'timestamptz' })
  updatedAt!: Date;
}

export const libraryEntities = [LibraryItemEntity];
