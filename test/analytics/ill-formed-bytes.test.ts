import { isUtf8 } from 'node:buffer';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { utmSourceOf } from '../../src/analytics/classification/ai-referral.js';
import { decodeUtf8Marked } from '../../src/analytics/utf8-text.js';
import { createAnalyticsKit, USER_AGENTS, type AnalyticsKit } from '../helpers/analytics-kit.js';
import { ANALYTICS_BACKENDS } from '../helpers/test-database.js';

/** The bytes decodeUtf8Marked read: each mark (a lone U+DC80–U+DCFF) is its byte again, the rest UTF-8. */
function reencoded(text: string): Buffer {
  const parts: Buffer[] = [];
  let start = 0;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    const paired = index > 0 && text.charCodeAt(index - 1) >= 0xd800 && text.charCodeAt(index - 1) <= 0xdbff;
    if (unit >= 0xdc80 && unit <= 0xdcff && !paired) {
      parts.push(Buffer.from(text.slice(start, index), 'utf8'), Buffer.from([unit - 0xdc00]));
      start = index + 1;
    }
  }
  parts.push(Buffer.from(text.slice(start), 'utf8'));
  return Buffer.concat(parts);
}

describe('decodeUtf8Marked', () => {
  test('valid UTF-8 decodes as Buffer does; each byte that is not UTF-8 becomes a mark, losslessly', () => {
    expect(decodeUtf8Marked(Buffer.from('caf\u00e9 \u{1f600} /a', 'utf8'))).toBe('caf\u00e9 \u{1f600} /a');
    // A stray continuation byte, an overlong "/", an encoded surrogate, a byte past F4, a truncated sequence at the end.
    expect(decodeUtf8Marked(Buffer.from([0x61, 0x80, 0x62]))).toBe('a\udc80b');
    expect(decodeUtf8Marked(Buffer.from([0xc0, 0xaf]))).toBe('\udcc0\udcaf');
    expect(decodeUtf8Marked(Buffer.from([0xed, 0xa0, 0x80]))).toBe('\udced\udca0\udc80');
    expect(decodeUtf8Marked(Buffer.from([0xf5, 0x80, 0x80, 0x80]))).toBe('\udcf5\udc80\udc80\udc80');
    expect(decodeUtf8Marked(Buffer.from([0xc3, 0xa9, 0xe2, 0x82]))).toBe('\u00e9\udce2\udc82');
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const text = decodeUtf8Marked(bytes);
        if (isUtf8(bytes)) expect(text).toBe(Buffer.from(bytes).toString('utf8'));
        expect(reencoded(text).equals(Buffer.from(bytes))).toBe(true);
      }),
      { seed: 20_261_202, numRuns: 2_000 },
    );
  });

  test('a utm_source that decodes to an unpaired surrogate is none (the importer re-encodes it)', () => {
    expect(utmSourceOf('/a?utm_source=chat\ud800gpt')).toBeNull();
    expect(utmSourceOf('/a?utm_source=%ED%A0%80')).toBeNull();
    expect(utmSourceOf('/a?utm_source=chatgpt.com')).toBe('chatgpt.com');
  });
});

const SITE = 'https://docs.example.com';

describe.each(ANALYTICS_BACKENDS)('bytes that are not UTF-8, and beacons [%s]', (backend) => {
  let kit: AnalyticsKit;
  beforeEach(async () => {
    kit = await createAnalyticsKit(backend);
    await kit.t.services.projects.update(kit.projectId, { settings: { allowedOrigins: [SITE] } });
  });
  afterEach(async () => kit.close());

  const sendRaw = (body: Buffer) =>
    kit.t.app.inject({
      method: 'POST',
      url: `/v1/analytics/${kit.projectId}/events`,
      headers: { authorization: `Bearer ${kit.ingestKey}`, 'content-type': 'application/json' },
      payload: body,
    });
  const beacon = (body: string | Buffer, contentType = 'text/plain') =>
    kit.t.app.inject({
      method: 'POST',
      url: `/v1/analytics/${kit.projectId}/collect`,
      headers: { origin: SITE, 'content-type': contentType, 'user-agent': USER_AGENTS.human },
      payload: body,
    });
  const views = async () => (await kit.get('views')).json().totals.total as number;

  test('raw bytes that are not UTF-8 in a field reject that event, naming the field; outside a string, the body is not JSON', async () => {
    const [before, after] = JSON.stringify({
      events: [
        { path: '/ok', visitorId: 'a', userAgent: USER_AGENTS.human },
        { path: '/ok', visitorId: 'b', userAgent: USER_AGENTS.human, referrer: 'https://example.com/SPLIT' },
      ],
    }).split('SPLIT');
    const response = await sendRaw(Buffer.concat([Buffer.from(before!), Buffer.from([0xff, 0xfe]), Buffer.from(after!)]));
    expect(response.statusCode).toBe(202);
    expect(response.json()).toEqual({
      accepted: 1,
      duplicates: 0,
      rejected: [{ index: 1, code: 'invalid_field', message: expect.stringMatching(/^referrer must be well-formed text/) }],
    });
    const outside = await sendRaw(Buffer.concat([Buffer.from('{"events": [] '), Buffer.from([0xc3]), Buffer.from('}')]));
    expect(outside.statusCode).toBe(400);
    expect(outside.json()).toMatchObject({ code: 'invalid_json' });
    expect(await views()).toBe(1);
  });

  test('a beacon with an unpaired surrogate or bytes that are not UTF-8 is a 400 naming the field, never a 500', async () => {
    expect((await beacon(JSON.stringify({ path: '/ok', referrer: '' }))).statusCode).toBe(204);
    const surrogatePath = await beacon(JSON.stringify({ path: '/a\ud800', referrer: '' }));
    expect(surrogatePath.statusCode).toBe(400);
    expect(surrogatePath.json()).toMatchObject({ code: 'invalid_path', detail: expect.stringMatching(/^path must be well-formed text/) });
    const surrogateReferrer = await beacon(JSON.stringify({ path: '/ok', referrer: 'https://example.com/\udfff' }), 'application/json');
    expect(surrogateReferrer.statusCode).toBe(400);
    expect(surrogateReferrer.json()).toMatchObject({ code: 'invalid_field', detail: expect.stringMatching(/^referrer must be well-formed text/) });
    const rawBytes = await beacon(Buffer.concat([Buffer.from('{"path": "/caf'), Buffer.from([0xe9]), Buffer.from('", "referrer": ""}')]));
    expect(rawBytes.statusCode).toBe(400);
    expect(rawBytes.json()).toMatchObject({ code: 'invalid_path' });
    expect(await views()).toBe(1);
  });

  test('a long value is cut without splitting a surrogate pair, and the event is stored', async () => {
    const emoji = '\u{1f600}';
    const response = await kit.send([
      { path: '/long', visitorId: 'a', userAgent: `${USER_AGENTS.human}${'x'.repeat(1023 - USER_AGENTS.human.length)}${emoji}` },
      { path: '/long', visitorId: 'b', userAgent: USER_AGENTS.human, referrer: `https://example.com/${'r'.repeat(2047 - 20)}${emoji}` },
      { path: '/long', visitorId: 'c', userAgent: USER_AGENTS.human, accept: `text/html${','.repeat(1023 - 9)}${emoji}` },
    ]);
    expect(response.statusCode, response.body).toBe(202);
    expect(response.json()).toEqual({ accepted: 3, duplicates: 0, rejected: [] });
    expect(await views()).toBe(3);
  });
});
