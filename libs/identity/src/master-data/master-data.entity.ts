import { Column, Entity, PrimaryColumn } from 'typeorm';

// Master data of document 3 ("master:manage"): the organizations and job types a user belongs to.
// Platform-wide (not per tenant): a code names the same organization in every tenant's user records.

@Entity({ schema: 'identity', name: 'organizations' })
export class OrganizationEntity {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'organizations_pkey' })
  code!: string;

  @Column({ type: 'text' })
  label!: string;

  @Column({ type: 'timestamptz' })
  createdAt!: Date;

  @Column({ type: 'timestamptz' })
  updatedAt!: Date;
}

@Entity({ schema: 'identity', name: 'job_types' })
export class JobTypeEntity {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'job_types_pkey' })
  code!: string;

  @Column({ type: 'text' })
  label!: string;

  @Column({ type: 'timestamptz' })
  createdAt!: Date;

  @Column({ type: 'timestamptz' })
  updatedAt!: Date;
}

export type MasterDataKind = 'organization' | 'jobType';

export type MasterRecordEntity = OrganizationEntity | JobTypeEntity;
