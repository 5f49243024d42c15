import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HEALTH, type Health } from '@fed/observability';
import { DataSource } from 'typeorm';

@Injectable()
export class PostgresReadiness implements OnModuleInit {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(HEALTH) private readonly health: Health,
  ) {}

  onModuleInit(): void {
    this.health.register({
      name: 'postgres',
      check: async () => {
        try {
          await this.dataSource.query('SELECT 1');
        } catch (error) {
          // The driver's message can name hosts and users, never passwords; keep it short anyway.
          throw new Error(`query failed: ${error instanceof Error ? error.message.slice(0, 200) : 'unknown error'}`);
        }
      },
    });
  }
}
