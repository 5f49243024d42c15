import { CatalogError } from '@fed/agent';
import { ApiError } from '@fed/contracts';
import { ApiKeysError } from '@fed/gateway';
import { ClientsError, RealmError, SigningKeysError, UsersError } from '@fed/identity';
import { CommanderError } from 'commander';
import { failureOf } from './failures';

describe('how platformctl ends on an error', () => {
  it("reports a refusal of any lib with the lib's own code and exit 1", () => {
    for (const error of [
      new UsersError('user_not_found', 'no such user'),
      new ClientsError('client_exists', 'client etl already exists'),
      new SigningKeysError('key_not_found', 'no signing key k1'),
      new ApiKeysError('key_not_found', 'no key x'),
      new CatalogError('persona_exists', 'a persona pirate exists'),
    ]) {
      expect(failureOf(error)).toEqual({ exitCode: 1, message: `refused (${error.code}): ${error.message}` });
    }
  });

  it('reports a refusal of the REST vocabulary (conversations) the same way', () => {
    expect(failureOf(new ApiError('conversation_processing', 'a turn is processing'))).toEqual({
      exitCode: 1,
      message: 'refused (conversation_processing): a turn is processing',
    });
  });

  it("shows a realm file's problems as they are, exit 1", () => {
    const failure = failureOf(new RealmError(['/users/0: must NOT have additional properties']));
    expect(failure.exitCode).toBe(1);
    expect(failure.message).toContain('\n  /users/0: must NOT have additional properties');
  });

  it("keeps commander's exit code and adds nothing to what commander printed", () => {
    expect(failureOf(new CommanderError(2, 'commander.unknownOption', 'unknown option'))).toEqual({ exitCode: 2 });
  });

  it('names the tool before any other failure, exit 1', () => {
    expect(failureOf(new Error('the database schema is not up to date'))).toEqual({
      exitCode: 1,
      message: 'platformctl: the database schema is not up to date',
    });
  });
});
