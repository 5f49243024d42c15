import { isUuid } from '@fed/contracts';
import { withCode } from '@fed/server';
import { Transform } from 'class-transformer';
import { ValidateBy } from 'class-validator';
import { deliverablePathProblem } from './deliverable-path';

/** `?messageId=<uuid>&filepath=<path>`: which file of which assistant message. */
export class DeliverableContentQuery {
  @Transform(({ value }: { value: unknown }) => (isUuid(value) ? value.toLowerCase() : value))
  @ValidateBy(
    { name: 'isMessageId', validator: { validate: (value: unknown) => isUuid(value) } },
    withCode('invalid_parameter', 'messageId must be a UUID'),
  )
  messageId!: string;

  @ValidateBy(
    { name: 'isDeliverablePath', validator: { validate: (value: unknown) => deliverablePathProblem(value) === null } },
    withCode('invalid_parameter', 'filepath must be the relative path of a deliverable'),
  )
  filepath!: string;
}

export interface DeliverableBlobRow {
  id: string;
  filename: string;
  mimeType: string | null;
  size: string;
  blobKey: string;
}
