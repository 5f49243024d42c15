import type { MigrationInterface, QueryRunner } from 'typeorm';

// Gateway usage with a filter the narrow rollups cannot answer (issue 38: a model with a key or user grouping, or
// a key or user with a model grouping) reads the fine rollup, whose only indexes are led by the day or the tenant:
// a month of every tenant was a scan of the whole table (2,138 pages at 10^7 log rows) for the 1,980 buckets of one
// model. An index per filter, led by the filtered column, reads only those (190 pages). Each holds the buckets that
// have the column, as the filter never matches a null. Updates of a bucket's sums stay HOT (no indexed column
// changes), so the trigger pays only when a new bucket is inserted. Checked against the audit lib's
// GatewayUsageDayEntity by the drift spec; never edited after landing.
const INDEXES: readonly { name: string; column: string }[] = [
  { name: 'llm_gateway_usage_days_model_idx', column: 'model_name' },
  { name: 'llm_gateway_usage_days_key_idx', column: 'virtual_key_id' },
  { name: 'llm_gateway_usage_days_principal_idx', column: 'principal' },
];

export class IndexGatewayUsageFilters1795408500000 implements MigrationInterface {
  name = 'IndexGatewayUsageFilters1795408500000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const { name, column } of INDEXES) {
      await queryRunner.query(
        `CREATE INDEX "${name}" ON "audit"."llm_gateway_usage_days" ("${column}", "day") WHERE "${column}" IS NOT NULL`,
      );
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const { name } of [...INDEXES].reverse()) {
      await queryRunner.query(`DROP INDEX "audit"."${name}"`);
    }
  }
}
