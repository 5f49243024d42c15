import { Module } from '@nestjs/common';

// OpenID Connect provider of document 1: discovery, authorize, token, userinfo, JWKS, revoke, login and consent pages.
// Feature modules are added here; the host (config, logging, health, database, bus, auth) is shared.
@Module({})
export class AuthServiceModule {}
