import { Module } from '@nestjs/common';
import { RealmImportModule, SigningKeysModule } from '@fed/identity';
import { OidcModule } from './oidc/oidc.module';
import { SignUpModule } from './signup/signup.module';

/** The document 1 OpenID provider as auth-service serves it, with the realm file imported at start. */
@Module({ imports: [SigningKeysModule, OidcModule, SignUpModule, RealmImportModule] })
export class SignInModule {}
