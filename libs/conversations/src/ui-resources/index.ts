export * from './external-ui-source.port';
export * from './ui-resource-record';
export { UiResourcesModule, UiResourcesStoreModule } from './ui-resources.module';
export { UiResourcesService } from './ui-resources.service';
export { type UiResourceHtmlResponse } from './ui-resources.dto';
