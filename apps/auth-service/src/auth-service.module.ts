import { Module } from '@nestjs/common';
import { SignInModule } from '@fed/sign-in';

// OpenID Connect provider of document 1 (libs/sign-in). The host (config, logging, health, database, bus, auth) is shared.
@Module({ imports: [SignInModule] })
export class AuthServiceModule {}
