import { ADMIN_PAGE, type NumberedPageQuery } from '@fed/contracts';
import { Transform } from 'class-transformer';
import { IsOptional, ValidateBy } from 'class-validator';
import { PageLimit } from './page-query.dto';
import { withCode } from './with-code';

const DIGITS = /^[0-9]{1,9}$/;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * From digits only; anything else stays as it came and is refused.
 * @openapi {"type": "integer", "minimum": 1}
 */
function PageNumber(): PropertyDecorator {
  const toNumber = Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && DIGITS.test(value) ? Number(value) : value,
  );
  const check = ValidateBy(
    {
      name: 'pageNumber',
      validator: { validate: (value: unknown) => typeof value === 'number' && Number.isInteger(value) && value >= 1 },
    },
    withCode('invalid_parameter', 'page must be an integer of at least 1'),
  );
  return (target, property) => {
    toNumber(target, property);
    check(target, property);
  };
}

/** 2026-02-30 does not exist. */
export function isCalendarDay(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const match = DAY.exec(value);
  if (!match) return false;
  const date = new Date(`${value}T00:00:00.000Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
}

/** @openapi {"type": "string", "format": "date"} */
function CalendarDay(name: string): PropertyDecorator {
  return ValidateBy(
    { name: 'calendarDay', validator: { validate: (value: unknown) => isCalendarDay(value) } },
    withCode('invalid_parameter', `${name} must be a date YYYY-MM-DD`),
  );
}

/** Document 3, "Pagination envelope": `limit` 1-100 (default 25), `page` >= 1 (default 1). */
export class NumberedPageQueryDto implements NumberedPageQuery {
  @IsOptional()
  @PageLimit(ADMIN_PAGE.maxLimit)
  limit?: number;

  @IsOptional()
  @PageNumber()
  page?: number;
}

/** `from`/`to` are UTC days, `to` inclusive. */
export class LogPageQueryDto extends NumberedPageQueryDto {
  @IsOptional()
  @CalendarDay('from')
  from?: string;

  @IsOptional()
  @CalendarDay('to')
  @ValidateBy(
    {
      name: 'notBeforeFrom',
      validator: {
        validate: (value: unknown, args) => {
          const from = (args?.object as { from?: unknown }).from;
          return !isCalendarDay(from) || !isCalendarDay(value) || value >= from;
        },
      },
    },
    withCode('invalid_parameter', 'to must not be before from'),
  )
  to?: string;
}
