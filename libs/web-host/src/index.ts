export * from './web-app-files';
