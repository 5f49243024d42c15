import * as oidc from 'openid-client';
import { TestBrowser } from './test-browser';

export interface SignIn {
  /** The browser's origin. */
  serviceUrl: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  login: string;
  password: string;
  scope?: string;
}

/** The real Authorization Code flow: discovery, login (and consent), PKCE S256, code exchange by openid-client. */
export async function signIn(options: SignIn): Promise<oidc.TokenEndpointResponse> {
  const config = await oidc.discovery(
    new URL(options.issuer),
    options.clientId,
    undefined,
    oidc.ClientSecretPost(options.clientSecret),
    { execute: [oidc.allowInsecureRequests] },
  );
  const browser = new TestBrowser(options.serviceUrl);
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: options.redirectUri,
    scope: options.scope ?? 'openid',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
  });
  let page = await browser.visit(url.href);
  if (page.html.includes('name="password"')) {
    page = await browser.submit(page, { login: options.login, password: options.password });
  }
  if (page.html.includes('name="decision"')) page = await browser.submit(page, { decision: 'allow' });
  if (!page.location) throw new Error(`the sign-in stopped at ${page.status}: ${page.html.slice(0, 300)}`);
  return oidc.authorizationCodeGrant(config, new URL(page.location), {
    pkceCodeVerifier: verifier,
    expectedState: state,
  });
}
