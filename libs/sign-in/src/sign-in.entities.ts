import { IdpUserTokensEntity } from './brokering/idp-user-tokens.entity';
import { ConsentEntity } from './consents/consent.entity';
import { OidcArtifactEntity } from './oidc/artifacts/oidc-artifact.entity';
import { RefreshTokenEntity } from './oidc/refresh-tokens/refresh-token.entity';
import { TokenFamilyEntity } from './oidc/refresh-tokens/token-family.entity';
import { RevokedAccessTokenEntity } from './oidc/revocation/revoked-access-token.entity';

export const signInEntities = [
  ConsentEntity,
  IdpUserTokensEntity,
  OidcArtifactEntity,
  RefreshTokenEntity,
  RevokedAccessTokenEntity,
  TokenFamilyEntity,
];
