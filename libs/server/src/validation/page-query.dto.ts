import { type PageQuery, type SortOrder } from '@fed/contracts';
import { Transform } from 'class-transformer';
import { IsIn, IsOptional, IsString, ValidateBy } from 'class-validator';
import { withCode } from './with-code';

export const PAGE_LIMIT_MAX = 100;
const DIGITS = /^[0-9]{1,4}$/;
const CURSOR_MESSAGE = 'cursor must be a value returned by a previous response of this list';

/**
 * Spec, Pagination: 1-100. Only digits become a number; anything else stays as it came and is refused.
 * @openapi {"type": "integer", "minimum": 1, "maximum": "$max"}
 */
export function PageLimit(max = PAGE_LIMIT_MAX): PropertyDecorator {
  const toNumber = Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && DIGITS.test(value) ? Number(value) : value,
  );
  const check = ValidateBy(
    {
      name: 'pageLimit',
      constraints: [max],
      validator: {
        validate: (value: unknown) =>
          typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= max,
      },
    },
    withCode('invalid_parameter', `limit must be an integer from 1 to ${max}`),
  );
  return (target, property) => {
    toNumber(target, property);
    check(target, property);
  };
}

abstract class PageQueryFields implements PageQuery {
  @IsOptional()
  @PageLimit()
  limit?: number;

  // Checked against its list by toPageParams; here only that it came once.
  @IsOptional()
  @IsString(withCode('invalid_cursor', CURSOR_MESSAGE))
  cursor?: string;
}

/** Spec: `order` is supported only by some endpoints. */
export class CursorPageQuery extends PageQueryFields {
  @IsOptional()
  @ValidateBy(
    { name: 'unsupportedOrder', validator: { validate: () => false } },
    withCode('invalid_parameter', 'order is not supported by this list'),
  )
  order?: never;
}

export class OrderedCursorPageQuery extends PageQueryFields {
  @IsOptional()
  @IsIn(['asc', 'desc'], withCode('invalid_parameter', 'order must be asc or desc'))
  order?: SortOrder;
}
