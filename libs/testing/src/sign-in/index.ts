export * from './sign-in';
export * from './test-browser';
