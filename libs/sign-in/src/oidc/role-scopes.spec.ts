import { managementScopes } from '@fed/contracts';
import { type ScopeHolder, scopesHeldBy, scopesWithheldFrom } from './role-scopes';

const every = ['openid', 'chat:exec', 'llm:invoke', ...managementScopes];
const holder = (role: ScopeHolder['role'], platformOperator: boolean): ScopeHolder => ({ role, platformOperator });

describe('the scopes a user holds (consent page, grant, code exchange, every refresh)', () => {
  it('gives platform:manage only to an admin who is a platform operator, with every other management scope', () => {
    expect(scopesHeldBy(holder('admin', true), every)).toEqual(['openid', 'chat:exec', ...managementScopes]);
    expect(scopesWithheldFrom(holder('admin', true), every)).toEqual(['llm:invoke']);
  });

  it('withholds platform:manage from an admin who is not a platform operator, keeping the other management scopes', () => {
    expect(scopesHeldBy(holder('admin', false), every)).toEqual([
      'openid',
      'chat:exec',
      ...managementScopes.filter((scope) => scope !== 'platform:manage'),
    ]);
    expect(scopesWithheldFrom(holder('admin', false), every)).toEqual(['llm:invoke', 'platform:manage']);
  });

  it('withholds every management scope from a user, operator flag or not (a demoted operator holds nothing more)', () => {
    for (const platformOperator of [false, true]) {
      expect(scopesHeldBy(holder('user', platformOperator), every)).toEqual(['openid', 'chat:exec']);
      expect(scopesWithheldFrom(holder('user', platformOperator), every)).toEqual(['llm:invoke', ...managementScopes]);
    }
  });

  it('never gives a user llm:invoke, whatever the role and flag', () => {
    for (const role of ['admin', 'user'] as const) {
      for (const platformOperator of [false, true]) {
        expect(scopesHeldBy(holder(role, platformOperator), ['llm:invoke'])).toEqual([]);
      }
    }
  });
});
