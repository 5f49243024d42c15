import { useTestDatabase } from '@fed/persistence/testing';
import { randomUUID } from 'node:crypto';
import { identityEntities } from '../identity.entities';
import { masterDataServiceFor } from '../master-data/master-data.module';
import { TenantIdpRepository } from './tenant-idp.repository';

/** The labels a tenant's identity-provider sign-in gives a user's organization and job codes (issue 34). */
describe("identity-provider sign-in: master-data labels of the user's own tenant", () => {
  const database = useTestDatabase({ entities: identityEntities });
  const tenants = { acme: randomUUID(), globex: randomUUID() };

  beforeAll(async () => {
    for (const [name, id] of Object.entries(tenants)) {
      await database.dataSource.query(
        `INSERT INTO "identity"."tenants" ("id", "name", "type", "endpoint", "enabled", "created_at")
         VALUES ($1, $2, 'enterprise', 'https://example.com', true, now())`,
        [id, name],
      );
    }
    const masterData = masterDataServiceFor(database.dataSource);
    await masterData.create('organization', tenants.globex, { code: 'rnd', label: 'Globex Research' });
    await masterData.create('jobType', tenants.globex, { code: 'eng', label: 'Globex Engineer' });
    await masterData.create('jobType', null, { code: 'ops', label: 'Operations' });
    await masterData.create('organization', tenants.acme, { code: 'legal', label: 'Acme Legal' });
  });

  it("labels a code with the tenant's own entry or a platform-wide one, never another tenant's", async () => {
    const repository = new TenantIdpRepository(database.dataSource);
    // acme's upstream names codes that only globex has: no label of globex's reaches acme's users.
    expect(await repository.masterLabels(tenants.acme, 'rnd', 'eng')).toEqual({
      organization: undefined,
      job: undefined,
    });
    expect(await repository.masterLabels(tenants.acme, 'legal', 'ops')).toEqual({
      organization: 'Acme Legal',
      job: 'Operations',
    });
    expect(await repository.masterLabels(tenants.globex, 'rnd', 'eng')).toEqual({
      organization: 'Globex Research',
      job: 'Globex Engineer',
    });
  });
});
