export * from './external-ui-source.port';
export * from './ui-resource-record';
export { UiResourcesModule } from './ui-resources.module';
