import { readFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';

/** A CA bundle of absurd size is a mistake (a whole disk image, a log): refused. */
const MAX_CA_FILE_BYTES = 1024 * 1024;
const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * The certificates of DOCWRIGHT_WEBHOOK_CA_FILE (PEM, one or more): the private CAs webhook
 * receivers may present, trusted on top of Node's public roots. Read and parsed at start, so
 * a wrong path or a file without a certificate stops the process with a clear message
 * instead of failing every delivery later.
 */
export function loadWebhookCaFile(file: string | undefined): { certificates: string[] | null; problems: string[] } {
  if (file === undefined) return { certificates: null, problems: [] };
  const problem = (detail: string) => ({ certificates: null, problems: [`DOCWRIGHT_WEBHOOK_CA_FILE: ${detail}`] });
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return problem(`cannot read ${file} (${(error as Error).message})`);
  }
  if (Buffer.byteLength(text) > MAX_CA_FILE_BYTES) return problem(`${file} is larger than 1 MiB; it should hold only CA certificates`);
  const certificates = text.match(PEM_BLOCK) ?? [];
  if (certificates.length === 0) return problem(`${file} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  for (const [index, pem] of certificates.entries()) {
    try {
      new X509Certificate(pem);
    } catch (error) {
      return problem(`certificate ${index + 1} of ${file} does not parse (${(error as Error).message})`);
    }
  }
  return { certificates, problems: [] };
}
