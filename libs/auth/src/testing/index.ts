export * from './auth-test-app';
export * from './jose-signer';
export * from './jwks-server';
export * from './token-issuer';
