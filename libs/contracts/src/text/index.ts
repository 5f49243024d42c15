export * from './storable-text';
export * from './uuid';
export * from './locales';
