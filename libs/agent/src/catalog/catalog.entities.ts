import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

// What shapes an agent's prompt: personas (`personaKey`), playbooks (`playbookId`) and skills
// (`skillIds`) of the chat request. Managed with platformctl; seeded in all-in-one mode.

@Entity({ schema: 'agent', name: 'personas' })
@Index('personas_name_idx', ['name', 'key'])
export class PersonaEntity {
  /** `personaKey`. */
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'personas_pkey' })
  key!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  description!: string;

  /** Added to the system prompt. */
  @Column({ type: 'text' })
  instructions!: string;

  @Column({ type: 'timestamptz' })
  createdAt!: Date;

  @Column({ type: 'timestamptz' })
  updatedAt!: Date;
}

@Entity({ schema: 'agent', name: 'playbooks' })
@Index('playbooks_name_idx', ['name', 'id'])
export class PlaybookEntity {
  /** `playbookId`. */
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'playbooks_pkey' })
  id!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  description!: string;

  @Column({ type: 'text' })
  instructions!: string;

  /** A deactivated playbook is refused by the chat request (400). */
  @Column({ type: 'boolean', default: true })
  active!: boolean;

  @Column({ type: 'timestamptz' })
  createdAt!: Date;

  @Column({ type: 'timestamptz' })
  updatedAt!: Date;
}

@Entity({ schema: 'agent', name: 'skills' })
@Index('skills_name_idx', ['name', 'id'])
export class SkillEntity {
  /** `skillId`. */
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'skills_pkey' })
  id!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  description!: string;

  @Column({ type: 'text' })
  instructions!: string;

  /** An unavailable skill is ignored by the chat request. */
  @Column({ type: 'boolean', default: true })
  available!: boolean;

  @Column({ type: 'timestamptz' })
  createdAt!: Date;

  @Column({ type: 'timestamptz' })
  updatedAt!: Date;
}

export const catalogEntities = [PersonaEntity, PlaybookEntity, SkillEntity];
