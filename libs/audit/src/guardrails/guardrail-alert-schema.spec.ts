import { schemaDrift } from '@fed/persistence/testing';
import { GuardrailAlertEntity } from './guardrail-alert.entity';

describe('guardrail alerts table', () => {
  it('matches its entity (the migration and the entity have not drifted)', async () => {
    expect(await schemaDrift([GuardrailAlertEntity])).toEqual([]);
  });
});
