import 'reflect-metadata';
import { type ArgumentMetadata } from '@nestjs/common';
import { ApiError } from '@fed/contracts';
import { Type } from 'class-transformer';
import { IsDefined, IsIn, IsInt, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { Checks } from './checks';
import { CursorPageQuery, OrderedCursorPageQuery } from './page-query.dto';
import {
  RefuseUnknownFields,
  RenderValidationFailure,
  RequestValidationPipe,
  type ValidationFailure,
} from './request-validation.pipe';
import { IsNotBlank, IsStorableText, MaxCharacters } from './text.validators';
import { withCode } from './with-code';

class Part {
  @IsIn(['text', 'image'], withCode('invalid_parameter', '$path must be text or image'))
  type!: string;

  @IsOptional()
  @IsString()
  text?: string;
}

class Message {
  @IsString(withCode('invalid_request', '$path is required'))
  role!: string;

  @ValidateNested({ each: true })
  @Type(() => Part)
  parts!: Part[];
}

class Conversation {
  // Written top to bottom in the order they are meant to be checked.
  @IsDefined(withCode('invalid_request', 'title is required'))
  @IsString(withCode('invalid_request', 'title must be a string'))
  @MaxLength(5, withCode('invalid_parameter', 'title is too long'))
  title!: string;

  @IsOptional()
  @IsString()
  note?: string;

  @IsOptional()
  @ValidateNested({ each: true })
  @Type(() => Message)
  messages?: Message[];
}

class Counted {
  @IsOptional()
  @IsInt()
  count?: number;
}

class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
  ) {
    super(description);
  }
}

@RenderValidationFailure((failure: ValidationFailure) => new OAuthError('invalid_request', failure.message))
class OAuthForm {
  @IsString({ message: 'client_id is required' })
  client_id!: string;
}

class Ordered {
  @Checks(
    IsDefined(withCode('invalid_request', 'label is required')),
    IsString(withCode('invalid_request', 'label must be a string')),
    IsNotBlank(withCode('invalid_request', 'label must not be empty')),
    MaxCharacters(3, withCode('invalid_parameter', 'label is over 3 characters')),
    IsStorableText(withCode('invalid_parameter', 'label is not storable')),
  )
  label!: string;
}

class Named {
  @IsOptional()
  @IsString()
  name?: string;
}

@RefuseUnknownFields()
class Profile extends Named {
  @IsOptional()
  @MaxLength(3, withCode('invalid_parameter', 'bio is too long'))
  bio?: string | null;
}

const pipe = new RequestValidationPipe();
const body = (metatype: ArgumentMetadata['metatype']): ArgumentMetadata => ({ type: 'body', metatype });
const query = (metatype: ArgumentMetadata['metatype']): ArgumentMetadata => ({ type: 'query', metatype });
const param = (metatype: ArgumentMetadata['metatype']): ArgumentMetadata => ({ type: 'param', metatype });

async function refusal(value: unknown, metadata: ArgumentMetadata) {
  try {
    await pipe.transform(value, metadata);
  } catch (error) {
    if (error instanceof ApiError) return { status: error.status, code: error.code, message: error.message };
    throw error;
  }
  throw new Error('the value was accepted');
}

describe('the request validation pipe', () => {
  it('answers with the code and message the failing decorator names', async () => {
    expect(await refusal({ title: 'far too long' }, body(Conversation))).toEqual({
      status: 400,
      code: 'invalid_parameter',
      message: 'title is too long',
    });
  });

  it('defaults to invalid_request for a body and invalid_parameter for a query or path parameter', async () => {
    expect(await refusal({ title: 'a', note: 7 }, body(Conversation))).toMatchObject({
      code: 'invalid_request',
      message: 'note must be a string',
    });
    expect(await refusal({ count: '5' }, query(Counted))).toMatchObject({ code: 'invalid_parameter' });
    expect(await refusal({ count: 'x' }, param(Counted))).toMatchObject({ code: 'invalid_parameter' });
  });

  it('reports the first failing decorator as written, top to bottom', async () => {
    expect(await refusal({}, body(Conversation))).toMatchObject({ message: 'title is required' });
    expect(await refusal({ title: 123456 }, body(Conversation))).toMatchObject({ message: 'title must be a string' });
    const ordered = async (label: unknown) => (await refusal({ label }, body(Ordered))).message;
    expect(await ordered(undefined)).toBe('label is required');
    expect(await ordered(['x'])).toBe('label must be a string');
    expect(await ordered('    ')).toBe('label must not be empty');
    expect(await ordered('abcd')).toBe('label is over 3 characters');
    expect(await ordered('a\u0000')).toBe('label is not storable');
    await expect(pipe.transform({ label: '😀😀😀' }, body(Ordered))).resolves.toEqual({ label: '😀😀😀' });
  });

  it('reports the first property in declaration order', async () => {
    expect(await refusal({ note: 1, title: 2 }, body(Conversation))).toMatchObject({
      message: 'title must be a string',
    });
  });

  it('validates nested DTOs and names the nested path in the message', async () => {
    const conversation = {
      title: 'hi',
      messages: [
        { role: 'user', parts: [{ type: 'text' }] },
        { role: 'user', parts: [{ type: 'text' }, { type: 'video' }] },
      ],
    };
    expect(await refusal(conversation, body(Conversation))).toEqual({
      status: 400,
      code: 'invalid_parameter',
      message: 'messages[1].parts[1].type must be text or image',
    });
    expect(await refusal({ title: 'hi', messages: [{ parts: [] }] }, body(Conversation))).toMatchObject({
      code: 'invalid_request',
      message: 'messages[0].role is required',
    });
    expect(await refusal({ title: 'hi', messages: ['text'] }, body(Conversation))).toMatchObject({
      code: 'invalid_request',
    });
  });

  it('refuses a body that is not a JSON object, and reads an absent body as an empty one', async () => {
    for (const value of [[], [{ title: 'a' }], 'a string', 42, true, null]) {
      expect(await refusal(value, body(Conversation))).toEqual({
        status: 400,
        code: 'invalid_request',
        message: 'body must be a JSON object',
      });
    }
    expect(await refusal(undefined, body(Conversation))).toMatchObject({ message: 'title is required' });
    await expect(pipe.transform(undefined, body(Counted))).resolves.toEqual({});
  });

  it('turns the input into the DTO class and drops properties it does not declare', async () => {
    const dto = await pipe.transform({ title: 'hi', extra: { deep: true } }, body(Conversation));
    expect(dto).toBeInstanceOf(Conversation);
    expect(dto).toEqual({ title: 'hi' });
  });

  it('refuses the first field a RefuseUnknownFields DTO does not declare, naming it, before any value', async () => {
    expect(await refusal({ bio: 'far too long', role: 'admin' }, body(Profile))).toEqual({
      status: 400,
      code: 'invalid_parameter',
      message: 'unknown field "role"; the fields are bio, name',
    });
    // Inherited fields are declared; an absent body and an empty one have no unknown field.
    await expect(pipe.transform({ name: 'Ada', bio: null }, body(Profile))).resolves.toEqual({
      name: 'Ada',
      bio: null,
    });
    await expect(pipe.transform(undefined, body(Profile))).resolves.toEqual({});
    // A hostile name is cut short and escaped.
    const long = await refusal({ [`a\u0000${'x'.repeat(5000)}`]: 1 }, body(Profile));
    expect(long.message).toMatch(/^unknown field "a\\u0000x{62}\.\.\.";/);
    expect(await refusal(JSON.parse('{"__proto__":{"polluted":true}}'), body(Profile))).toMatchObject({
      message: expect.stringContaining('"__proto__"'),
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // Other DTOs keep dropping unknown fields.
    await expect(pipe.transform({ name: 'Ada', role: 'admin' }, body(Named))).resolves.toEqual({ name: 'Ada' });
  });

  it('neither pollutes prototypes nor lets __proto__ or constructor keys through', async () => {
    const input = JSON.parse(
      '{"title":"hi","__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}',
    );
    const dto = (await pipe.transform(input, body(Conversation))) as Record<string, unknown>;
    expect(dto).toBeInstanceOf(Conversation);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(dto)).toEqual(['title']);
    expect(dto.constructor).toBe(Conversation);
  });

  it('converts nothing implicitly: a query number stays a string and is refused', async () => {
    expect(await refusal({ count: '5' }, query(Counted))).toMatchObject({ code: 'invalid_parameter' });
    await expect(pipe.transform({ count: 5 }, body(Counted))).resolves.toEqual({ count: 5 });
  });

  it('leaves parameters that are not DTO classes untouched', async () => {
    const raw = { anything: ['goes'] };
    expect(await pipe.transform(raw, body(Object))).toBe(raw);
    expect(await pipe.transform('abc', param(String))).toBe('abc');
    expect(await pipe.transform('5', { type: 'query', metatype: Number, data: 'limit' })).toBe('5');
    expect(await pipe.transform([1], body(undefined))).toEqual([1]);
    expect(await pipe.transform(raw, { type: 'custom', metatype: Conversation })).toBe(raw);
  });

  it('reports a malformed path parameter before a malformed body or query that was checked first', async () => {
    const settled: string[] = [];
    const checks = [
      pipe.transform([], body(Conversation)).catch(() => settled.push('body')),
      pipe.transform({ count: 'x' }, query(Counted)).catch(() => settled.push('query')),
      pipe.transform({ count: 'x' }, param(Counted)).catch(() => settled.push('param')),
    ];
    await Promise.all(checks);
    expect(settled[0]).toBe('param');
  });

  it('renders a failure in the format the DTO asks for', async () => {
    await expect(pipe.transform({}, body(OAuthForm))).rejects.toEqual(
      new OAuthError('invalid_request', 'client_id is required'),
    );
    await expect(pipe.transform([], body(OAuthForm))).rejects.toBeInstanceOf(OAuthError);
  });

  describe('the cursor list query', () => {
    const page = (value: Record<string, unknown>) => pipe.transform(value, query(OrderedCursorPageQuery));

    it('accepts limit 1 and 100, as a number', async () => {
      expect(await page({ limit: '1' })).toEqual({ limit: 1 });
      expect(await page({ limit: '100', order: 'asc', cursor: 'abc' })).toEqual({
        limit: 100,
        order: 'asc',
        cursor: 'abc',
      });
    });

    it('refuses 0, 101, fractions, words and a repeated limit with 400 invalid_parameter', async () => {
      for (const limit of ['0', '101', '1.5', 'ten', '', '-1', ['5']]) {
        expect(await refusal({ limit }, query(OrderedCursorPageQuery))).toEqual({
          status: 400,
          code: 'invalid_parameter',
          message: 'limit must be an integer from 1 to 100',
        });
      }
    });

    it('refuses an order other than asc or desc', async () => {
      expect(await refusal({ order: 'up' }, query(OrderedCursorPageQuery))).toMatchObject({
        code: 'invalid_parameter',
      });
    });

    it('refuses order on a list without it', async () => {
      expect(await refusal({ order: 'asc' }, query(CursorPageQuery))).toMatchObject({
        code: 'invalid_parameter',
        message: 'order is not supported by this list',
      });
      expect(await pipe.transform({ limit: '5' }, query(CursorPageQuery))).toEqual({ limit: 5 });
    });

    it('refuses a cursor given twice as invalid_cursor', async () => {
      expect(await refusal({ cursor: ['a', 'b'] }, query(OrderedCursorPageQuery))).toMatchObject({
        code: 'invalid_cursor',
      });
    });
  });
});
