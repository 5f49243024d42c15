export * from './relayed-signal.v1';
