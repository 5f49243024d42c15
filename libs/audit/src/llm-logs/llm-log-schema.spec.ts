import { schemaDrift } from '@fed/persistence/testing';
import { LlmLogEntity } from './llm-log.entity';

describe('LLM log table', () => {
  it('matches its entity (the migration and the entity have not drifted)', async () => {
    expect(await schemaDrift([LlmLogEntity])).toEqual([]);
  });
});
