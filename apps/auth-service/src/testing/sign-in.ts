// Moved to @fed/testing: the platform's tests sign users in too.
export { type SignIn, signIn } from '@fed/testing';
