import './preload';
import 'reflect-metadata';
import { createLogger, writeToLogDestination } from '@fed/observability';
import { type AppConfig, ConfigError, loadConfig } from '@fed/config';
import { endProcess, runService } from '@fed/server';
import { prepareAllInOne } from './all-in-one';
import { banner } from './banner';
import { DemoRealm, demoBanner } from './demo-realm';
import { platformFeatures } from './platform-features';

function platformConfig(): AppConfig<'platform'> | undefined {
  try {
    return loadConfig('platform');
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return undefined;
  }
}

const config = platformConfig();
if (config) start(config);
else endProcess(78);

function start(config: AppConfig<'platform'>): void {
  // Whatever the platform writes (DATA_DIR, blobs, temporary uploads) is its own user's only, whatever the
  // shell's umask: DATA_DIR holds chat text, password hashes and secrets.
  process.umask(0o077);
  const embeddedDatabase = !config.database.url;

  void runService({
    app: 'platform',
    features: platformFeatures,
    config,
    // The only app whose log may be for a person at a terminal (LOG_FORMAT): the services always write JSON.
    logger: createLogger({ service: 'platform', level: config.log.level, format: config.log.format }),
    prepare: prepareAllInOne,
    onReady: (service) =>
      writeToLogDestination(
        service.logger,
        banner(
          service.config,
          service.url,
          embeddedDatabase,
          service.bus.kind,
          demoBanner(
            service.nest.get(DemoRealm),
            {
              tokenUrl: `${service.config.auth.authUrl}/federation/auth/v1/token`,
              gateway: {
                openai: `${service.config.http.publicUrl}/llm/v1`,
                anthropic: `${service.config.http.publicUrl}/llm`,
              },
              marketplace:
                service.config.edition === 'marketplace'
                  ? {
                      tokenUrl: `${service.config.http.publicUrl}/api/v1/auth/external-service-token`,
                      chatUrl: `${service.config.http.publicUrl}/api/v1/chat/completions`,
                      model: service.config.chat.modelName,
                    }
                  : undefined,
            },
            service.config.signingKeys.tokenTtlSeconds,
          ),
        ),
      ),
  });
}
