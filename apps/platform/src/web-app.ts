import { Inject, Injectable, Module, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { SERVICE_CONFIG, type ServiceConfig } from '@fed/config';
import { LOGGER, type Logger } from '@fed/observability';
import { FAST_ROUTES, type FastRoutes } from '@fed/server';
import {
  WEB_APP_PATHS,
  WEB_ASSETS_PREFIX,
  WEB_CONSOLE_PREFIX,
  WEB_CONVERSATION_PREFIX,
  WEB_FAVICON_PATH,
  type RunningWebSandbox,
  loadWebAppFiles,
  startWebSandbox,
} from '@fed/web-host';
import { existsSync } from 'node:fs';
import path from 'node:path';

export const WEB_DIR = path.resolve(__dirname, '../../../web');

/**
 * Serves the built web app (dist/web) at `/` (@fed/web-host): hashed assets cached for a year, index.html never;
 * the APIs keep their paths. Without a build (tests that run only the APIs) nothing is registered.
 */
@Injectable()
export class WebAppRoutes implements OnModuleInit {
  constructor(
    @Inject(FAST_ROUTES) private readonly routes: FastRoutes,
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    const files = loadWebAppFiles(WEB_DIR, {
      issuer: this.config.auth.issuer,
      authUrl: this.config.auth.authUrl,
      chatModel: this.config.chat.modelName,
      sandboxUrl: this.config.web.sandboxUrl,
      edition: this.config.edition,
    });
    if (!files) {
      this.logger.warn({ dir: WEB_DIR }, 'web app not built: run `node tools/build-web.mjs` (npm start does)');
      return;
    }
    for (const appPath of WEB_APP_PATHS) this.routes.add('GET', appPath, files.serveIndex);
    this.routes.addPrefix(WEB_CONVERSATION_PREFIX, files.serveIndex, () => `${WEB_CONVERSATION_PREFIX}*`);
    this.routes.addPrefix(WEB_CONSOLE_PREFIX, files.serveIndex, () => `${WEB_CONSOLE_PREFIX}*`);
    this.routes.add('GET', WEB_FAVICON_PATH, files.serveFavicon);
    this.routes.addPrefix(WEB_ASSETS_PREFIX, files.serveAsset);
  }
}

/** The UI resource sandbox's listener (@fed/web-host), beside the app's: only when there is an app to serve. */
@Injectable()
export class WebSandboxListener implements OnModuleInit, OnModuleDestroy {
  private sandbox?: RunningWebSandbox;

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: ServiceConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!existsSync(path.join(WEB_DIR, 'index.html'))) return;
    const { http, auth, web } = this.config;
    try {
      this.sandbox = await startWebSandbox({
        appOrigin: http.publicUrl,
        sandboxOrigin: web.sandboxUrl,
        protectedOrigins: [new URL(auth.authUrl).origin],
        port: web.sandboxPort,
        host: http.host,
      });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`the UI resource sandbox cannot listen on WEB_SANDBOX_PORT ${web.sandboxPort} (${reason})`);
    }
    this.logger.info({ url: this.sandbox.url, publicUrl: web.sandboxUrl }, 'UI resource sandbox listening');
  }

  async onModuleDestroy(): Promise<void> {
    await this.sandbox?.close();
  }
}

@Module({ providers: [WebAppRoutes, WebSandboxListener] })
export class WebAppModule {}
