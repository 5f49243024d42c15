export { type DownloadableBlob, attachmentDisposition, sendBlob, servedContentType } from './blob-response';
export { type FilesSweepResult, FilesSweepJob } from './files-sweep.job';
export { FilesModule } from './files.module';
export { FilesRepository } from './files.repository';
export { FilesService, MAX_UPLOAD_BYTES, UPLOADS_PREFIX, type SweepResult } from './files.service';
