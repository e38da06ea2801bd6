import { describe, expect, test } from 'vitest';
import { DocwrightError } from '../../src/core/errors.js';
import { SecretBox } from '../../src/core/secret-box.js';
import { sealLikeV1 } from '../helpers/legacy-secret.js';

const SECRET = 'an-instance-secret-of-at-least-32-characters';
const box = new SecretBox(SECRET);
const TOKEN = JSON.stringify({ token: 'ghp_SealedToken0123456789abcdefghijklmn' });

function refusal(open: () => unknown): DocwrightError {
  let error: unknown;
  try {
    open();
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(DocwrightError);
  expect((error as DocwrightError).code).toBe('secret_unreadable');
  return error as DocwrightError;
}

/** The same value with its GCM tag cut to `bytes` bytes (a forger needs far fewer tries). */
function withTag(sealed: string, bytes: number): string {
  const parts = sealed.split('.');
  parts[3] = Buffer.from(parts[3]!, 'base64url').subarray(0, bytes).toString('base64url');
  return parts.join('.');
}

describe('SecretBox', () => {
  test('seals as v2 for a project and opens for that project only', () => {
    const sealed = box.seal(TOKEN, 'prj_A');
    expect(sealed).toMatch(/^v2\.[\w-]{16}\.[\w-]+\.[\w-]{22}$/);
    expect(sealed).not.toContain('ghp_');
    expect(box.open(sealed, 'prj_A')).toBe(TOKEN);
    expect(refusal(() => box.open(sealed, 'prj_B')).message).toContain('sealed for another one');
    expect(refusal(() => new SecretBox('another-instance-secret-of-32-characters!').open(sealed, 'prj_A')).message).toContain('DOCWRIGHT_SECRET');
  });

  test.each([15, 12, 8, 4])('a tag cut to %i bytes is refused', (bytes) => {
    const sealed = box.seal(TOKEN, 'prj_A');
    refusal(() => box.open(withTag(sealed, bytes), 'prj_A'));
  });

  test('a tampered ciphertext or IV is refused', () => {
    const [version, iv, body, tag] = box.seal(TOKEN, 'prj_A').split('.') as [string, string, string, string];
    const flipped = (text: string) => {
      const bytes = Buffer.from(text, 'base64url');
      bytes[0] = bytes[0]! ^ 1;
      return bytes.toString('base64url');
    };
    refusal(() => box.open([version, iv, flipped(body), tag].join('.'), 'prj_A'));
    refusal(() => box.open([version, flipped(iv), body, tag].join('.'), 'prj_A'));
    refusal(() => box.open('v3.a.b.c', 'prj_A'));
    refusal(() => box.open('not sealed', 'prj_A'));
  });

  test('a v1 value (bound to nothing) is never opened, only upgraded to v2 for a project', () => {
    const legacy = sealLikeV1(SECRET, TOKEN);
    expect(box.isLegacy(legacy)).toBe(true);
    expect(refusal(() => box.open(legacy, 'prj_A')).message).toContain('v1');
    const upgraded = box.upgrade(legacy, 'prj_A');
    expect(box.isLegacy(upgraded)).toBe(false);
    expect(box.open(upgraded, 'prj_A')).toBe(TOKEN);
    refusal(() => box.open(upgraded, 'prj_B'));
    // A v1 value with a cut tag is not upgraded either; a v2 value needs no upgrade.
    refusal(() => box.upgrade(withTag(legacy, 4), 'prj_A'));
    refusal(() => box.upgrade(upgraded, 'prj_A'));
    refusal(() => new SecretBox('another-instance-secret-of-32-characters!').upgrade(legacy, 'prj_A'));
  });
});
