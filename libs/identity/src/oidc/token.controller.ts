import { Controller, Inject, Post, Req, Res } from '@nestjs/common';
import { Public } from '@fed/auth';
import { type Request, type Response } from 'express';
import type Provider from 'oidc-provider';
import { OIDC_PROVIDER } from './oidc.tokens';
import { withAuthMethodOf } from './token-request.context';

@Controller('federation/auth/v1')
export class TokenController {
  private readonly handle: ReturnType<Provider['callback']>;

  constructor(@Inject(OIDC_PROVIDER) provider: Provider) {
    this.handle = provider.callback();
  }

  // The provider writes RFC 6749 responses itself and reads the form body from the raw request.
  @Public()
  @Post('token')
  token(@Req() req: Request, @Res() res: Response): void {
    withAuthMethodOf(req.headers.authorization, () => this.handle(req, res));
  }
}
