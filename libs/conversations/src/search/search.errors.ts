import { domainErrors } from '@fed/contracts';

/** A refused search; the message is safe to show. */
export class SearchError extends domainErrors({
  invalid_cursor: 'invalid_cursor',
}) {}

export type SearchErrorCode = SearchError['code'];
