import { AuditAction, AuditDetails } from '@fed/audit';
import { SaasOnly, Scopes } from '@fed/auth';
import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import {
  RotateSigningKeyBody,
  type SigningKeyListResponse,
  SigningKeyParams,
  type SigningKeyResponse,
  type SigningKeyRevocationResponse,
  toSigningKeyResponse,
  toSigningKeyRevocationResponse,
} from './signing-keys-admin.dto';
import { SigningKeyAdministration } from './signing-keys-admin.service';

/** The OpenID provider's signing keys, as `platformctl keys` manages them (docs/identity.md, "Signing keys"). */
@SaasOnly()
@Controller('api/v1/admin/signing-keys')
@Scopes('platform:manage')
export class SigningKeysAdminController {
  constructor(private readonly keys: SigningKeyAdministration) {}

  @Get()
  async list(): Promise<SigningKeyListResponse> {
    return { signingKeys: (await this.keys.list()).map(toSigningKeyResponse) };
  }

  @Post('rotate')
  @AuditAction('signing-keys/rotate', 'rotate')
  async rotate(@Body() body: RotateSigningKeyBody, @AuditDetails() audit: AuditDetails): Promise<SigningKeyResponse> {
    const created = await this.keys.rotate(body.activateInSeconds);
    audit.add({ kid: created.kid, activatesAt: created.activatesAt.toISOString() });
    return toSigningKeyResponse(created);
  }

  @Post(':kid/revoke')
  @HttpCode(200)
  @AuditAction('signing-keys/revoke', 'revoke')
  async revoke(
    @Param() { kid }: SigningKeyParams,
    @AuditDetails() audit: AuditDetails,
  ): Promise<SigningKeyRevocationResponse> {
    const revocation = await this.keys.revoke(kid);
    if (revocation.replacement) audit.add({ replacement: revocation.replacement.kid });
    return toSigningKeyRevocationResponse(revocation);
  }
}
