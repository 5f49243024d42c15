import { RenderValidationFailure } from '@fed/server';
import { IsNotEmpty, IsString } from 'class-validator';
import { oauthErrors } from './oauth-http';

/** The spec's Marketplace token response: no refresh token, no ID token. */
export interface MarketplaceTokenResponse {
  success: true;
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

/** The body of `POST /api/v1/auth/external-service-token`: a service account's id and secret. */
// One answer for every malformed body, a missing or non-JSON one included, in the endpoint's format.
@RenderValidationFailure(() =>
  oauthErrors.invalidRequest('client_id and client_secret (strings) are required in an application/json body'),
)
export class MarketplaceTokenRequest {
  @IsString()
  @IsNotEmpty()
  client_id!: string;

  @IsString()
  @IsNotEmpty()
  client_secret!: string;
}
