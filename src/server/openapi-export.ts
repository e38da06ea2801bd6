import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { OpenAPIV3_1 } from 'openapi-types';
import { loadConfig } from '../config/load-config.js';
import { buildApp } from '../app/build-app.js';
import { createLogger } from '../app/logger.js';
import { features } from './features.js';
import { openRuntime } from './open-runtime.js';

/**
 * The OpenAPI document `/openapi.json` serves, built without a server or a configured data
 * dir (a throw-away SQLite file), for `docwright openapi` and the SDK's generated types.
 * `publicUrl` is the default of the document's server variable.
 */
export async function exportOpenApiDocument(publicUrl = 'http://127.0.0.1:3000'): Promise<OpenAPIV3_1.Document> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'docwright-openapi-'));
  try {
    const config = loadConfig({
      DOCWRIGHT_DATA_DIR: dataDir,
      DOCWRIGHT_SECRET: randomBytes(32).toString('hex'),
      DOCWRIGHT_PUBLIC_URL: publicUrl,
      DOCWRIGHT_LOG_LEVEL: 'silent',
      DOCWRIGHT_AGENT_RANGES_REFRESH_HOURS: '0',
    });
    const services = await openRuntime(config);
    try {
      const app = await buildApp({ services, logger: createLogger({ level: 'silent' }), features });
      await app.ready();
      const document = app.swagger() as OpenAPIV3_1.Document;
      await app.close();
      return document;
    } finally {
      await services.close();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}
