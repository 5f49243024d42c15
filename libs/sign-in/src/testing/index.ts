export * from './account-forms';
export * from './axe';
export * from './boot-auth-service';
export * from './chromium';
export * from './scope-probe.module';
export * from './scripted-idp';
export * from './smtp-mailbox';
export * from './upstream-provider';
