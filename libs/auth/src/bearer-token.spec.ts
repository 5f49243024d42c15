import { ApiError } from '@fed/contracts';
import { bearerTokenFrom } from './bearer-token';

describe('bearerTokenFrom', () => {
  const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1In0.c2lnbmF0dXJl';

  it.each(['Bearer', 'bearer', 'BEARER'])('reads the token after the %s scheme', (scheme) => {
    expect(bearerTokenFrom(`${scheme} ${jwt}`)).toBe(jwt);
  });

  it('refuses a missing header with a bare challenge', () => {
    for (const header of [undefined, '']) {
      const error = catchError(() => bearerTokenFrom(header));
      expect(error).toMatchObject({ code: 'invalid_token', status: 401 });
      expect(error.headers['WWW-Authenticate']).toBe('Bearer realm="federation"');
    }
  });

  it.each([
    'Basic dXNlcjpwYXNz',
    'Bearer',
    'Bearer ',
    `Bearer ${jwt} ${jwt}`,
    `Bearer ${jwt},${jwt}`,
    `Bearer\t${jwt}`,
    `${jwt}`,
    `Bearer "${jwt}"`,
  ])('refuses the malformed header %j', (header) => {
    const error = catchError(() => bearerTokenFrom(header));
    expect(error).toMatchObject({ code: 'invalid_token', status: 401 });
    expect(error.headers['WWW-Authenticate']).toContain('error="invalid_token"');
  });
});

function catchError(action: () => unknown): ApiError {
  try {
    action();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('nothing was thrown');
}
