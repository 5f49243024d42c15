import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Rows of a log per UTC day, kept by triggers on the log tables (every insert and delete, in the
 * same statement): a list's `total` over whole days is a sum of a few of these, not a count of up
 * to millions of rows.
 */
@Entity({ schema: 'audit', name: 'log_day_counts' })
export class LogDayCountEntity {
  /** `audit` or `gateway`. */
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'log_day_counts_pkey' })
  log!: string;

  @PrimaryColumn({ type: 'date', primaryKeyConstraintName: 'log_day_counts_pkey' })
  day!: string;

  @Column({ type: 'bigint', default: 0 })
  rowCount!: string;
}
