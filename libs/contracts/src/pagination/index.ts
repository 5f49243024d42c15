export * from './cursor-page';
