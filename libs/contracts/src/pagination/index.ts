export * from './cursor-page';
export * from './numbered-page';
