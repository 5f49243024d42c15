import { ApiError } from './api-error';
import { errorCodes } from './error-code';

describe('the error envelope', () => {
  it('carries type, code and message, with the status of the code', () => {
    const error = new ApiError('conversation_archived', 'the conversation is archived');
    expect(error.status).toBe(400);
    expect(error.toEnvelope()).toEqual({
      error: { type: 'invalid_request_error', code: 'conversation_archived', message: 'the conversation is archived' },
    });
  });

  it('maps the codes the spec names to the spec statuses', () => {
    expect(errorCodes.insufficient_scope.status).toBe(403);
    expect(errorCodes.conversation_not_found.status).toBe(404);
    expect(errorCodes.file_too_large.status).toBe(404);
    expect(errorCodes.upstream_api_error.status).toBe(502);
    expect(errorCodes.internal_error.status).toBe(500);
    expect(errorCodes.monthly_quota_exceeded).toEqual({ status: 429, type: 'rate_limit_error' });
    expect(errorCodes.upstream_timeout).toEqual({ status: 504, type: 'upstream_error' });
  });
});
