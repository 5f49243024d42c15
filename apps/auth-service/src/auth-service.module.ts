import { Module } from '@nestjs/common';
import { RealmImportModule, SigningKeysModule } from '@fed/identity';

// OpenID Connect provider of document 1: discovery, authorize, token, userinfo, JWKS, revoke,
// login and consent pages. The host (config, logging, health, database, bus, auth) is shared.
@Module({ imports: [SigningKeysModule, RealmImportModule] })
export class AuthServiceModule {}
