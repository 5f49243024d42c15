import 'reflect-metadata';
import { Controller, type INestApplication, Param, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { errorCodes } from '@fed/contracts';
import { createLogger } from '@fed/observability';
import { ApiExceptionFilter } from '@fed/server';
import { type AddressInfo } from 'node:net';
import { UsersError, type UsersErrorCode } from './users.errors';

// Stands for the admin API's user endpoints: whatever UsersService refuses reaches the filter as is.
@Controller('v1/admin/users')
class RefusingUsersController {
  @Post(':userId/:refusal')
  refuse(@Param('refusal') refusal: UsersErrorCode): never {
    throw new UsersError(refusal, `refused: ${refusal}`);
  }
}

describe('a UsersError thrown by a controller, rendered by the one exception filter', () => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    app = await NestFactory.create(
      { module: class UsersProbeModule {}, controllers: [RefusingUsersController] },
      { logger: false, abortOnError: false },
    );
    app.useGlobalFilters(new ApiExceptionFilter(createLogger({ service: 'admin-service', level: 'silent' })));
    await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}/v1/admin/users/u1`;
  });

  afterAll(() => app?.close());

  const refuse = async (refusal: UsersErrorCode) => {
    const res = await fetch(`${url}/${refusal}`, { method: 'POST' });
    return { status: res.status, body: (await res.json()) as { error: Record<string, unknown> } };
  };

  it('answers a user not found with 404 not_found in the envelope, not 500', async () => {
    expect(await refuse('user_not_found')).toEqual({
      status: 404,
      body: { error: { type: 'not_found_error', code: 'not_found', message: 'refused: user_not_found' } },
    });
  });

  it('answers approve or reject from the wrong status with 400', async () => {
    const { status, body } = await refuse('invalid_status');
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request' });
  });

  it('answers a role that is not admin or user with 400', async () => {
    expect((await refuse('invalid_role')).status).toBe(400);
  });

  it("answers every users code with the code its table names and that code's status", async () => {
    for (const [refusal, code] of Object.entries(UsersError.apiCodes)) {
      const { status, body } = await refuse(refusal as UsersErrorCode);
      expect([refusal, status, body.error.code]).toEqual([refusal, errorCodes[code].status, code]);
    }
  });
});
