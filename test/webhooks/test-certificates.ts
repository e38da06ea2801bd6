import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface KeyAndCertificate {
  key: string;
  cert: string;
}

/** A fresh P-256 key, unencrypted, valid for a day (OpenSSL checks validity against the real clock, not the tests' manual one). */
const NEW_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
const ONE_DAY = ['-days', '1'];

/**
 * Fresh certificates for TLS receivers, made with the `openssl` command line (present
 * wherever Node is built or git runs over https; no npm dependency): a private CA, server
 * certificates it issues for given names, and self-signed ones.
 */
export class TestCertificates {
  private readonly dir = mkdtempSync(join(tmpdir(), 'docwright-certs-'));
  private serial = 0;
  /** The CA's key and certificate, PEM; the certificate's file is `caFile` (for DOCWRIGHT_WEBHOOK_CA_FILE). */
  readonly ca: KeyAndCertificate;
  readonly caFile: string;

  constructor(caName = 'Docwright Test CA') {
    this.caFile = join(this.dir, 'ca.pem');
    this.ca = this.selfSignedAs('ca', `/CN=${caName}`, ['basicConstraints=critical,CA:TRUE', 'keyUsage=critical,keyCertSign,cRLSign']);
  }

  /** A server certificate for `names` (DNS names), issued by this CA. */
  issue(...names: string[]): KeyAndCertificate {
    const base = join(this.dir, `leaf-${++this.serial}`);
    writeFileSync(`${base}.ext`, `subjectAltName=${names.map((name) => `DNS:${name}`).join(',')}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`);
    this.openssl(['req', '-new', ...NEW_KEY, '-subj', `/CN=${names[0]}`, '-keyout', `${base}.key`, '-out', `${base}.csr`]);
    const signer = ['-CA', this.caFile, '-CAkey', join(this.dir, 'ca.key'), '-set_serial', String(1000 + this.serial)];
    this.openssl(['x509', '-req', '-in', `${base}.csr`, ...signer, ...ONE_DAY, '-extfile', `${base}.ext`, '-out', `${base}.pem`]);
    return { key: readFileSync(`${base}.key`, 'utf8'), cert: readFileSync(`${base}.pem`, 'utf8') };
  }

  /** A self-signed certificate for `name`: what no configuration here trusts. */
  selfSigned(name: string): KeyAndCertificate {
    return this.selfSignedAs(`self-${++this.serial}`, `/CN=${name}`, [`subjectAltName=DNS:${name}`]);
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }

  private selfSignedAs(file: string, subject: string, extensions: string[]): KeyAndCertificate {
    const base = join(this.dir, file);
    const added = extensions.flatMap((extension) => ['-addext', extension]);
    this.openssl(['req', '-x509', ...NEW_KEY, ...ONE_DAY, '-subj', subject, ...added, '-keyout', `${base}.key`, '-out', `${base}.pem`]);
    return { key: readFileSync(`${base}.key`, 'utf8'), cert: readFileSync(`${base}.pem`, 'utf8') };
  }

  private openssl(args: string[]): void {
    execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  }
}
