import { Module } from '@nestjs/common';

/** A2A of document 3: the agent card and the JSON-RPC endpoint `POST /api/v1/a2a`. */
@Module({})
export class A2aModule {}
