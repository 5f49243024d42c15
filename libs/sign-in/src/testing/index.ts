// Test helpers for auth-service and the sign-in flows: the service booted as main.ts starts it, a
// browser, axe, scripted upstream providers, a mailbox.
export * from './account-forms';
export * from './axe';
export * from './boot-auth-service';
export * from './chromium';
export * from './scope-probe.module';
export * from './scripted-idp';
export * from './smtp-mailbox';
export * from './upstream-provider';
