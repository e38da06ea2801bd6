import { createLogger } from '../../src/app/logger.js';
import { createWebhookWorker } from '../../src/webhooks/start-webhook-worker.js';
import type { WebhookDeliveryWorker } from '../../src/webhooks/webhook-delivery-worker.js';
import type { WebhookResolver } from '../../src/webhooks/webhook-http.js';
import type { Dialect } from '../../src/db/database.js';
import { createTestApp, createTestProject, type TestApp } from '../helpers/test-app.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see eslint.config.js on tests reading bodies as any
type ResponseBody = any;

/** Loopback receivers over plain http: what the tests allow; production refuses both. */
export const LOOPBACK_ALLOWED = { DOCWRIGHT_WEBHOOK_ALLOW_HTTP: 'on', DOCWRIGHT_WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8,::1/128' };

/** A project's admin client of the kit's app. */
export interface ProjectClient {
  projectId: string;
  key: string;
  api(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: ResponseBody; headers: Record<string, unknown> }>;
  /** A job created through the API and archived at once: a `job.archived` event without any model. */
  archivedJob(): Promise<string>;
}

export interface WebhookKit extends TestApp, ProjectClient {
  worker: WebhookDeliveryWorker;
  /** Another project of the same app, with an admin key of its own. */
  otherProject(): Promise<ProjectClient>;
}

/** The real app on a manual clock, a project with an admin key, and a delivery worker driven by hand. */
export async function createWebhookKit(
  dialect: Dialect,
  environment: Record<string, string> = LOOPBACK_ALLOWED,
  options: { resolve?: WebhookResolver } = {},
): Promise<WebhookKit> {
  const t = await createTestApp(dialect, { DOCWRIGHT_PUBLIC_URL: 'https://docwright.example', ...environment });
  const client = await projectClient(t);
  const worker = createWebhookWorker(t.services, createLogger({ level: 'silent' }), options);
  return {
    ...t,
    ...client,
    worker,
    otherProject: () => projectClient(t),
    async close() {
      await worker.stop();
      await t.close();
    },
  };
}

async function projectClient(t: TestApp): Promise<ProjectClient> {
  const project = await createTestProject(t.services);
  const key = (await t.services.keys.create({ projectId: project.id })).key;
  const api: ProjectClient['api'] = async (method, path, body) => {
    const response = await t.app.inject({
      method,
      url: path,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      payload: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.statusCode, body: response.body === '' ? undefined : response.json(), headers: response.headers };
  };
  return {
    projectId: project.id,
    key,
    api,
    async archivedJob() {
      const created = await api('POST', `/v2/agent/${project.id}/job`, { prompt: 'Anything' });
      if (created.status !== 201) throw new Error(`create answered ${created.status}`);
      const archived = await api('POST', `/v2/agent/${project.id}/job/${created.body.id}/archive`);
      if (archived.status !== 200) throw new Error(`archive answered ${archived.status}`);
      return created.body.id as string;
    },
  };
}
