export * from './checks';
export * from './page-query.dto';
export * from './request-validation.pipe';
export * from './text.validators';
export * from './with-code';
export * from './numbered-page-query.dto';
