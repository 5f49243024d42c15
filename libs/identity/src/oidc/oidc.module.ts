import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { ClientRepository } from '../clients/client.repository';
import { identityEntities } from '../identity.entities';
import { SigningKeysModule } from '../signing-keys/signing-keys.module';
import { SigningKeysService } from '../signing-keys/signing-keys.service';
import { OIDC_PROVIDER } from './oidc.tokens';
import { createOidcProvider } from './oidc-provider.factory';
import { TokenController } from './token.controller';

/** The OpenID provider's endpoints that are served so far: the token endpoint's client-credentials grant. */
@Module({
  imports: [TypeOrmModule.forFeature(identityEntities), SigningKeysModule],
  controllers: [TokenController],
  providers: [
    ClientRepository,
    {
      provide: OIDC_PROVIDER,
      inject: [ClientRepository, SigningKeysService, SERVICE_CONFIG],
      useFactory: async (clients: ClientRepository, keys: SigningKeysService, config: ServiceConfig) => {
        // The provider signs ID tokens of later flows with the active key (never its development keys).
        await keys.ensureSigningKey();
        return createOidcProvider(clients, keys, await keys.activeSigningKey(), {
          issuer: config.auth.issuer,
          tokenTtlSeconds: config.signingKeys.tokenTtlSeconds,
          serviceAccountDomain: config.signingKeys.serviceAccountDomain,
        });
      },
    },
  ],
})
export class OidcModule {}
