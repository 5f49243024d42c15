import { LlmGatewayLogEntity } from '@fed/audit';
import { schemaDrift } from '@fed/persistence/testing';
import { ApiKeyEntity } from './api-key.entity';

describe('gateway and gateway-log tables', () => {
  it('match their entities (migrations and entities have not drifted)', async () => {
    expect(await schemaDrift([ApiKeyEntity, LlmGatewayLogEntity])).toEqual([]);
  });
});
