import { schemaDrift } from '@fed/persistence/testing';
import { AccessLogEntity } from './access-log.entity';

describe('access log table', () => {
  it('matches its entity (the migration and the entity have not drifted)', async () => {
    expect(await schemaDrift([AccessLogEntity])).toEqual([]);
  });
});
