import type { Logger } from '../app/logger.js';
import type { Services } from '../app/services.js';
import { WebhookDeliveryWorker } from './webhook-delivery-worker.js';
import type { WebhookTransport } from './webhook-http.js';
import { webhookTrust } from './webhook-tls.js';

/** The webhook delivery worker of a process that runs the job worker (`serve`, `worker`). */
export function createWebhookWorker(services: Services, logger: Logger, transport: Pick<WebhookTransport, 'resolve'> = {}): WebhookDeliveryWorker {
  const settings = services.config.webhooks;
  const ca = webhookTrust(settings.caCertificates);
  return new WebhookDeliveryWorker({
    outbox: services.webhookOutbox,
    endpoints: services.webhooks,
    policy: services.webhookPolicy,
    limits: { connectTimeoutMs: settings.connectTimeoutMs, timeoutMs: settings.timeoutMs },
    transport: { ...transport, ...(ca === undefined ? {} : { ca }) },
    clock: services.clock,
    logger: logger.child({ component: 'webhooks' }),
    publicUrl: () => services.config.publicUrl,
    concurrency: settings.concurrency,
    notifier: services.notifier,
    pollMs: settings.pollMs,
    retentionMs: settings.retentionMs,
  });
}
