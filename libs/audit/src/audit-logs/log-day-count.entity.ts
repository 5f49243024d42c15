import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Rows per UTC day, kept by triggers on the log tables, so a list's `total` need not count millions of rows. */
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
