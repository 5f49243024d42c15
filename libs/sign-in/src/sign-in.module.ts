import { Module } from '@nestjs/common';
import { RealmImportModule, SigningKeysModule } from '@fed/identity';
import { OidcModule } from './oidc/oidc.module';
import { SignUpModule } from './signup/signup.module';

/**
 * The OpenID Connect provider of document 1 as auth-service serves it: discovery, authorize, token,
 * userinfo, JWKS, revocation, the login, consent and sign-out pages, sign-up and password reset, and
 * the realm file imported at start.
 */
@Module({ imports: [SigningKeysModule, OidcModule, SignUpModule, RealmImportModule] })
export class SignInModule {}
