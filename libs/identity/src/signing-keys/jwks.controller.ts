import { Controller, Get, Header } from '@nestjs/common';
import { Public } from '@fed/auth';
import { PublishedJwks } from './published-jwks';

@Controller('federation/auth/v1')
export class JwksController {
  constructor(private readonly jwks: PublishedJwks) {}

  @Public()
  @Get('jwks')
  @Header('Cache-Control', 'no-cache')
  jwksDocument() {
    return this.jwks.current();
  }
}
