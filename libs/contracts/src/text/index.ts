export * from './storable-text';
export * from './uuid';
