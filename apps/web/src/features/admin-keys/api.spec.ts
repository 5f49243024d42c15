import { ApiRequestError } from '../../lib/api';
import { keyFieldOf } from './api';

const refusal = (message: string, status = 400) => new ApiRequestError(status, 'invalid_parameter', message);

describe('keyFieldOf', () => {
  // The messages as the API words them (libs/gateway/src/keys).
  it.each([
    ['name must be 1-100 characters of text', 'name'],
    ['rpm must be an integer', 'rpm'],
    ['tpm must be an integer', 'tpm'],
    ['the daily budget must be a number of dollars from 0, with at most 4 decimals', 'dailyBudgetUsd'],
    ['the expiry must be in the future (to stop a key now, revoke it)', 'expiresAt'],
    ['"not-a-net" is not an IP address or CIDR range', 'networks'],
    ['model names are 1-200 letters, digits or . : / @ _ - ', 'models'],
    ['tenantId must be a tenant id (a UUID)', 'tenantId'],
  ] as const)('%s: %s', (message, field) => {
    expect(keyFieldOf(refusal(message))).toBe(field);
  });

  it('names no field but for a 400', () => {
    expect(keyFieldOf(new ApiRequestError(409, 'conflict', 'the key is revoked'))).toBeUndefined();
    expect(keyFieldOf(new Error('rpm must be an integer'))).toBeUndefined();
  });
});
