import { DomainError, domainErrors } from './domain-error';

class ShelfError extends domainErrors({
  shelf_not_found: 'not_found',
  shelf_exists: 'conflict',
}) {}

describe('a domain error', () => {
  it('keeps the lib code and the message, named after its class', () => {
    const error = new ShelfError('shelf_exists', 'a shelf with this name exists');
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe('shelf_exists');
    expect(error.message).toBe('a shelf with this name exists');
    expect(error.name).toBe('ShelfError');
  });

  it("answers through its lib's table with that code's status and type", () => {
    const notFound = new ShelfError('shelf_not_found', 'no such shelf').toApiError();
    expect(notFound.status).toBe(404);
    expect(notFound.toEnvelope()).toEqual({
      error: { type: 'not_found_error', code: 'not_found', message: 'no such shelf' },
    });
    expect(new ShelfError('shelf_exists', 'taken').toApiError().status).toBe(409);
  });

  it('takes only the codes of its table, and a table only the API codes', () => {
    // @ts-expect-error: not a code of the shelf table
    expect(new ShelfError('shelf_lost', 'x').code).toBe('shelf_lost');
    // @ts-expect-error: `gone` is not an ErrorCode of the spec
    expect(() => domainErrors({ shelf_lost: 'gone' })).not.toThrow();
    expect(ShelfError.apiCodes).toEqual({ shelf_not_found: 'not_found', shelf_exists: 'conflict' });
  });
});
