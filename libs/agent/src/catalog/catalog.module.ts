import { Module } from '@nestjs/common';

/** Personas, playbooks and skills: their lists (`GET /v1/personas`, `/v1/playbooks`, `/v1/skills`) and the chat request's checks. */
@Module({})
export class CatalogModule {}
