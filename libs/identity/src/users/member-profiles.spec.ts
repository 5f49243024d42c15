import { useTestDatabase } from '@fed/persistence/testing';
import { identityEntities } from '../identity.entities';
import { UserRepository } from './user.repository';
import { MemberProfiles } from './member-profiles';
import { UsersService } from './users.service';

describe('member profiles (real PostgreSQL)', () => {
  const database = useTestDatabase({ entities: identityEntities });

  it("reads the user's organization and job type codes; an unknown user has none", async () => {
    const users = new UsersService(new UserRepository(database.dataSource), {
      defaultTenantEndpoint: 'http://localhost:8080',
    });
    const { user } = await users.create({
      email: 'bob@example.com',
      displayName: 'Bob',
      password: 'correct horse battery',
      status: 'approved',
      organization: { id: 'sales', label: 'Sales' },
      job: { id: 'Engineer', label: 'Engineer' },
    });
    const profiles = new MemberProfiles(database.dataSource);
    expect(await profiles.of(user.id)).toEqual({ orgId: 'sales', jobRole: 'Engineer' });
    expect(await profiles.of('00000000-0000-4000-8000-000000000000')).toEqual({});
    expect(await profiles.of('not-a-uuid')).toEqual({});
  });
});
