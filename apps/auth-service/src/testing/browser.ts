// Moved to @fed/testing: the platform's tests sign users in too.
export { TestBrowser } from '@fed/testing';
