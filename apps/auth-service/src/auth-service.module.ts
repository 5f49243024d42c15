import { Module } from '@nestjs/common';
import { OidcModule, RealmImportModule, SignUpModule, SigningKeysModule } from '@fed/identity';

// OpenID Connect provider of document 1: discovery, authorize, token, userinfo, JWKS, revoke,
// login and consent pages, sign-up and password reset. The host (config, logging, health, database, bus, auth) is shared.
@Module({ imports: [SigningKeysModule, OidcModule, SignUpModule, RealmImportModule] })
export class AuthServiceModule {}
