import { insufficientScope, invalidToken } from './auth.errors';

describe('auth errors', () => {
  it('give 401 invalid_token with an RFC 6750 challenge', () => {
    const error = invalidToken('the token has expired');
    expect(error).toMatchObject({ status: 401, code: 'invalid_token', message: 'the token has expired' });
    expect(error.headers['WWW-Authenticate']).toBe(
      'Bearer realm="federation", error="invalid_token", error_description="the token has expired"',
    );
  });

  it('escape quotes and backslashes and drop control characters in the challenge', () => {
    const error = invalidToken('the "exp" claim \\ is\r\n malformed');
    expect(error.headers['WWW-Authenticate']).toBe(
      'Bearer realm="federation", error="invalid_token", error_description="the \\"exp\\" claim \\\\ is malformed"',
    );
  });

  it('give 403 insufficient_scope naming the accepted scopes', () => {
    const error = insufficientScope(['users:read', 'users:manage']);
    expect(error).toMatchObject({ status: 403, code: 'insufficient_scope', type: 'permission_error' });
    expect(error.message).toContain('one of: users:read, users:manage');
    expect(error.headers['WWW-Authenticate']).toContain('error="insufficient_scope"');
  });
});
