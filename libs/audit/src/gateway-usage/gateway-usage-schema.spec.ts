import { schemaDrift } from '@fed/persistence/testing';
import {
  GatewayUsageCallerDayEntity,
  GatewayUsageDayEntity,
  GatewayUsageModelDayEntity,
} from './gateway-usage-day.entity';

describe('the gateway usage tables', () => {
  it('match their entities (migrations and entities have not drifted)', async () => {
    expect(await schemaDrift([GatewayUsageDayEntity, GatewayUsageModelDayEntity, GatewayUsageCallerDayEntity])).toEqual(
      [],
    );
  });
});
