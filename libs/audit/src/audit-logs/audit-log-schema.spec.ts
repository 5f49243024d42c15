import { schemaDrift } from '@fed/persistence/testing';
import { LlmGatewayLogEntity } from '../gateway-logs/llm-gateway-log.entity';
import { AuditLogEntity } from './audit-log.entity';
import { LogDayCountEntity } from './log-day-count.entity';

describe('audit log tables', () => {
  it('match their entities (migrations and entities have not drifted)', async () => {
    expect(await schemaDrift([AuditLogEntity, LlmGatewayLogEntity, LogDayCountEntity])).toEqual([]);
  });
});
