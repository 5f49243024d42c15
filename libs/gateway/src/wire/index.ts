export type * from './openai';
export type * from './anthropic';
