// Builds on the directory (libs/identity), never the reverse.
export { SignInModule } from './sign-in.module';
export { OidcModule } from './oidc/oidc.module';
export { SignUpModule } from './signup/signup.module';
export { IdentityProvidersModule } from './brokering/identity-providers.module';
export { signInEntities } from './sign-in.entities';

// The pages' texts: specs check the rendered pages against the catalogs.
export { scopeText, signInText } from './oidc/interactions/messages';
export { signOutText } from './oidc/sign-out/messages';
