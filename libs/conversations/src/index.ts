export * from './storage';
export * from './conversations/conversations.module';
export * from './turns/turns.module';
