import { Module } from '@nestjs/common';

/** `POST /v1/chat/completions`, reconnect and cancel: admission, SSE relay, reaper. */
@Module({})
export class TurnsModule {}
