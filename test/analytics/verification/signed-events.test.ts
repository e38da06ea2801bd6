import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { AnalyticsService } from '../../../src/analytics/analytics-service.js';
import { ANALYTICS_BACKENDS } from '../../helpers/test-database.js';
import { createAnalyticsKit, USER_AGENTS, type AnalyticsKit } from '../../helpers/analytics-kit.js';
import { TestSigner } from '../../fakes/web-bot-auth-signer.js';

describe.each(ANALYTICS_BACKENDS)('webBotAuth on events [%s]', (dialect) => {
  let kit: AnalyticsKit;
  beforeEach(async () => {
    kit = await createAnalyticsKit(dialect);
  });
  afterEach(async () => kit.close());

  const signer = new TestSigner();
  const signed = (): Record<string, unknown> => {
    const headers = signer.headers({
      agentUrl: 'https://chatgpt.com',
      authority: 'docs.example.com',
      created: Math.floor(kit.t.clock.now() / 1000),
      nonce: 'n1',
    });
    return { ...headers };
  };
  const event = (webBotAuth: unknown, path = '/ok') => ({ path, visitorId: 'v', userAgent: USER_AGENTS.human, webBotAuth });

  test('malformed or oversized signature headers reject their item only, with invalid_signature; valid ones are accepted', async () => {
    const batch = [
      event(signed(), '/signed'),
      event({ ...signed(), signatureInput: 'sig1=(' }),
      event({ ...signed(), signature: 'x'.repeat(5_000) }),
      event({ ...signed(), method: 'get' }),
      event({ ...signed(), path: 'no-slash' }),
      event({ ...signed(), authority: undefined }),
      event({ ...signed(), signatureInput: 'sig1=("@authority");created=1;expires=2;keyid="k";tag="other"' }),
      event('not an object'),
      event({ ...signed(), signature: 'sig1=:\u00e9:' }),
      event(null, '/unsigned'),
    ];
    const response = await kit.send(batch);
    expect(response.statusCode).toBe(202);
    const body = response.json<{ accepted: number; rejected: Array<{ index: number; code: string; message: string }> }>();
    expect(body.rejected.map((rejection) => [rejection.index, rejection.code])).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((index) => [index, 'invalid_signature']));
    expect(body.rejected[1]!.message).toMatch(/longer than 4096/);
    expect(body.rejected[5]!.message).toMatch(/web-bot-auth/);
    expect(body.accepted).toBe(2);
  });

  test('OpenAPI documents webBotAuth and invalid_signature', async () => {
    const spec = (await kit.t.app.inject({ method: 'GET', url: '/openapi.json' })).body;
    expect(spec).toContain('"webBotAuth"');
    expect(spec).toContain('"signatureInput"');
    expect(spec).toContain('invalid_signature');
  });

  test('the beacon verifies its own request: its signature headers go with the hit; malformed ones are dropped, the view still counts', async () => {
    await kit.t.services.projects.update(kit.projectId, { settings: { allowedOrigins: ['https://docs.example.com'] } });
    const ingest = vi.spyOn(AnalyticsService.prototype, 'ingest');
    try {
      const url = `/v1/analytics/${kit.projectId}/collect`;
      const own = signer.headers({
        agentUrl: 'https://chatgpt.com',
        authority: 'localhost:80',
        created: Math.floor(kit.t.clock.now() / 1000),
        method: 'POST',
        path: url,
      });
      const beacon = (headers: Record<string, string>) =>
        kit.t.app.inject({
          method: 'POST',
          url,
          headers: { origin: 'https://docs.example.com', 'content-type': 'text/plain', 'user-agent': USER_AGENTS.human, ...headers },
          payload: JSON.stringify({ path: '/docs/start' }),
          remoteAddress: '203.0.113.7',
        });
      expect((await beacon({ signature: own.signature, 'signature-input': own.signatureInput, 'signature-agent': own.signatureAgent! })).statusCode).toBe(204);
      expect((await beacon({ signature: 'garbage', 'signature-input': 'sig1=(' })).statusCode).toBe(204);
      const sent = ingest.mock.calls.map((call) => (call[1][0] as { webBotAuth?: Record<string, string> }).webBotAuth);
      expect(sent[0]).toMatchObject({
        signature: own.signature,
        signatureInput: own.signatureInput,
        signatureAgent: own.signatureAgent,
        method: 'POST',
        path: url,
      });
      expect(sent[1]).toBeUndefined();
    } finally {
      ingest.mockRestore();
    }
  });
});
