import {
  type ArgumentsHost,
  Catch,
  type DynamicModule,
  type ExceptionFilter,
  Global,
  type INestApplication,
  Module,
  type Type,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { SIGNALS, type Signals } from '@fed/bus';
import { type Edition, type HostConfig, SERVICE_CONFIG, loadConfig } from '@fed/config';
import { ApiError } from '@fed/contracts';
import { type Response } from 'express';
import { type AddressInfo } from 'node:net';
import { AuthModule, type AuthOptions } from '../auth.module';

export function testServiceConfig(auth: { issuer: string; jwksUrl: string }, edition: Edition = 'saas'): HostConfig {
  // Built by the real loader, so it follows every field the app configuration gains.
  const config = loadConfig('chat-service', {
    DATABASE_URL: 'postgres://unused@127.0.0.1:1/unused',
    REDIS_URL: 'redis://127.0.0.1:1',
    EDITION: edition,
    LOG_LEVEL: 'silent',
  });
  return {
    ...config,
    http: { ...config.http, host: '127.0.0.1', port: 0, shutdownTimeoutMs: 1000 },
    auth: { ...config.auth, authUrl: auth.issuer.replace(/\/realms\/federation$/, ''), ...auth, clockSkewSeconds: 10 },
  };
}

// The real filter lives in @fed/server, which itself imports this lib; this one renders only ApiError.
@Catch(ApiError)
class ApiErrorTestFilter implements ExceptionFilter {
  catch(error: ApiError, host: ArgumentsHost): void {
    host.switchToHttp().getResponse<Response>().status(error.status).set(error.headers).json(error.toEnvelope());
  }
}

// Mirrors the apps' host (@fed/server): a global module providing SERVICE_CONFIG and SIGNALS.
@Global()
@Module({})
class TestHostModule {
  static with(config: HostConfig, signals: Signals, auth?: AuthOptions): DynamicModule {
    const provided = [
      { provide: SERVICE_CONFIG, useValue: config },
      { provide: SIGNALS, useValue: signals },
    ];
    return {
      module: TestHostModule,
      imports: [auth ? AuthModule.forRoot(auth) : AuthModule],
      providers: provided,
      exports: provided.map((p) => p.provide),
    };
  }
}

@Module({})
class AuthTestRootModule {}

export interface AuthTestApp {
  nest: INestApplication;
  url: string;
  close(): Promise<void>;
}

/** A real Nest app on 127.0.0.1 with AuthModule as the host would install it. */
export async function startAuthTestApp(options: {
  config: HostConfig;
  signals: Signals;
  controllers: Type[];
  auth?: AuthOptions;
}): Promise<AuthTestApp> {
  const nest = await NestFactory.create(
    {
      module: AuthTestRootModule,
      imports: [TestHostModule.with(options.config, options.signals, options.auth)],
      controllers: options.controllers,
    },
    { logger: false, forceCloseConnections: true },
  );
  nest.useGlobalFilters(new ApiErrorTestFilter());
  await nest.listen(0, '127.0.0.1');
  const { port } = nest.getHttpServer().address() as AddressInfo;
  return { nest, url: `http://127.0.0.1:${port}`, close: () => nest.close() };
}
