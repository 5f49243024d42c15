import { schemaDrift } from '@fed/persistence/testing';
import { GatewayUsageDayEntity } from './gateway-usage-day.entity';

describe('the gateway usage table', () => {
  it('matches its entity (migrations and entities have not drifted)', async () => {
    expect(await schemaDrift([GatewayUsageDayEntity])).toEqual([]);
  });
});
