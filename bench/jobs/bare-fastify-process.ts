/**
 * Child-process entry of the poll benchmark's baseline: a bare Fastify app with one route
 * of the poll operation's shape that answers a constant job object. No authentication,
 * no database, no schema: what remains is Fastify's own floor on this machine.
 */
import Fastify from 'fastify';

const JOB = {
  id: '01JBENCHBENCHBENCHBENCHBENC',
  status: 'completed',
  source: { repository: '/srv/docs', ref: 'main' },
  model: 'openai-compatible:fake',
  prLink: 'http://127.0.0.1:3000/projects/01JBENCHPROJECT/pulls/1?token=BENCHbenchBENCHbenchBENCHbench01',
  createdAt: '2026-01-01T00:00:00.000Z',
  archivedAt: null,
  updatedAt: '2026-01-01T00:00:01.000Z',
};

const app = Fastify({ logger: false });
app.get('/v2/agent/:projectId/job/:id', async () => JOB);
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.send?.({ type: 'ready', url: address });
process.on('message', (message: unknown) => {
  if (message !== 'stop') return;
  void app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
