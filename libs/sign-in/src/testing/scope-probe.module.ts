import { Controller, Get, Module } from '@nestjs/common';
import { Scopes } from '@fed/auth';

/** An API of "another service" for tests: each route needs one scope, as the real services' routes will. */
@Controller('probe')
class ScopeProbeController {
  @Scopes('chat:exec')
  @Get('chat')
  chat() {
    return { ok: true };
  }

  @Scopes('logs:read')
  @Get('logs')
  logs() {
    return { ok: true };
  }

  @Scopes('users:read')
  @Get('users')
  users() {
    return { ok: true };
  }
}

@Module({ controllers: [ScopeProbeController] })
export class ScopeProbeModule {}
