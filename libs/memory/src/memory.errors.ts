import { ApiError, domainErrors } from '@fed/contracts';

/** The shared memory's refusals, each with the admin API's code (and so status) it answers with. */
export class MemoryError extends domainErrors({
  /** The gateway could not be reached, or answered an error or something that is not an embedding. */
  upstream_error: 'upstream_api_error',
  upstream_timeout: 'upstream_timeout',
  monthly_quota_exceeded: 'monthly_quota_exceeded',
  invalid_item: 'invalid_parameter',
}) {
  /** Headers the answer carries (the quota's, on every answer of the query endpoint). */
  headers: Readonly<Record<string, string>> = {};

  withHeaders(headers: Readonly<Record<string, string>>): this {
    this.headers = headers;
    return this;
  }

  override toApiError(): ApiError {
    const error = super.toApiError();
    return new ApiError(error.code, error.message, this.headers);
  }
}
