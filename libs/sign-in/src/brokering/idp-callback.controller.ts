import { Controller, Get, Req, Res } from '@nestjs/common';
import { Public } from '@fed/auth';
import { type Request, type Response } from 'express';
import { TenantSignIn } from './tenant-sign-in';

/** Where tenants' providers send the browser back: the redirect URI each tenant registers upstream. */
@Controller('federation/auth/v1/idp')
export class IdpCallbackController {
  constructor(private readonly signIn: TenantSignIn) {}

  @Public()
  @Get('callback')
  callback(@Req() req: Request, @Res() res: Response): Promise<void> {
    return this.signIn.callback(req, res);
  }
}
