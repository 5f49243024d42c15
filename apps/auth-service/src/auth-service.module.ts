import { Module } from '@nestjs/common';
import { OidcModule, RealmImportModule, SigningKeysModule } from '@fed/identity';

// OpenID Connect provider of document 1: discovery, authorize, token, userinfo, JWKS, revoke,
// login and consent pages. The host (config, logging, health, database, bus, auth) is shared.
@Module({ imports: [SigningKeysModule, OidcModule, RealmImportModule] })
export class AuthServiceModule {}
