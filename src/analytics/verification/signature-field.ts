import type { SignatureHeaders } from './hit-verifier.js';
import { parseWebBotAuthSignature } from './signature-base.js';

/** Longest accepted Signature, Signature-Input or Signature-Agent value; real ones are a few hundred bytes. */
export const MAX_SIGNATURE_HEADER_LENGTH = 4_096;
const MAX_AUTHORITY_LENGTH = 255;
const MAX_REQUEST_PATH_LENGTH = 8_192;
const METHOD = /^[A-Z]{1,16}$/;
// Header values are visible ASCII and spaces (RFC 9110 field-value, no obs-text).
const FIELD_VALUE = /^[\u0020-\u007e]*$/;

/**
 * Reads an event's `webBotAuth` member: the request's Signature, Signature-Input and
 * Signature-Agent headers as received, with the method, authority (Host) and path (with
 * its query) the signature covers. null when absent; a message when malformed or
 * oversized, so the event is rejected on its own (docs/analytics.md, "Signed requests").
 */
export function readSignatureField(value: unknown): SignatureHeaders | null | { message: string } {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) return { message: 'webBotAuth must be an object' };
  const field = value as Record<string, unknown>;
  const text = (name: string, max: number, optional = false): string | null | { message: string } => {
    const member = field[name];
    if ((member === undefined || member === null) && optional) return null;
    if (typeof member !== 'string' || member === '') return { message: `webBotAuth.${name} must be a non-empty string` };
    if (member.length > max) return { message: `webBotAuth.${name} is longer than ${max} characters` };
    if (!FIELD_VALUE.test(member)) return { message: `webBotAuth.${name} must be printable ASCII, as sent in the header` };
    return member;
  };
  const signature = text('signature', MAX_SIGNATURE_HEADER_LENGTH);
  const signatureInput = text('signatureInput', MAX_SIGNATURE_HEADER_LENGTH);
  const signatureAgent = text('signatureAgent', MAX_SIGNATURE_HEADER_LENGTH, true);
  const method = text('method', 16);
  const authority = text('authority', MAX_AUTHORITY_LENGTH);
  const path = text('path', MAX_REQUEST_PATH_LENGTH);
  for (const part of [signature, signatureInput, signatureAgent, method, authority, path]) if (part !== null && typeof part === 'object') return part;
  if (!METHOD.test(method as string)) return { message: 'webBotAuth.method must be an upper-case HTTP method such as GET' };
  if (!(path as string).startsWith('/')) return { message: 'webBotAuth.path must be the request target, starting with "/"' };
  const headers: SignatureHeaders = {
    signature: signature as string,
    signatureInput: signatureInput as string,
    signatureAgent: signatureAgent as string | null,
    method: method as string,
    authority: authority as string,
    path: path as string,
  };
  const parsed = parseWebBotAuthSignature(headers);
  if ('problem' in parsed && parsed.problem === 'malformed') return { message: `webBotAuth: ${parsed.reason}` };
  return headers;
}
