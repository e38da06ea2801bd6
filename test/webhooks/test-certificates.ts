import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface KeyAndCertificate {
  key: string;
  cert: string;
}

/**
 * Fresh certificates for TLS receivers, made with the `openssl` command line (present
 * wherever Node is built or git runs over https; no npm dependency): a private CA, server
 * certificates it issues for given names, and self-signed ones. P-256 keys, valid for a
 * day from now (OpenSSL checks validity against the real clock, not the tests' manual one).
 */
export class TestCertificates {
  private readonly dir = mkdtempSync(join(tmpdir(), 'docwright-certs-'));
  private serial = 0;
  /** The CA's certificate, PEM; its file is `caFile` (for DOCWRIGHT_WEBHOOK_CA_FILE). */
  readonly ca: KeyAndCertificate;
  readonly caFile: string;

  constructor(caName = 'Docwright Test CA') {
    this.caFile = join(this.dir, 'ca.pem');
    this.openssl([
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      `/CN=${caName}`,
      '-keyout',
      join(this.dir, 'ca.key'),
      '-out',
      this.caFile,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ]);
    this.ca = { key: readFileSync(join(this.dir, 'ca.key'), 'utf8'), cert: readFileSync(this.caFile, 'utf8') };
  }

  /** A server certificate for `names` (DNS names), issued by this CA. */
  issue(...names: string[]): KeyAndCertificate {
    const base = join(this.dir, `leaf-${++this.serial}`);
    writeFileSync(`${base}.ext`, `subjectAltName=${names.map((name) => `DNS:${name}`).join(',')}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`);
    this.openssl([
      'req',
      '-new',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-subj',
      `/CN=${names[0]}`,
      '-keyout',
      `${base}.key`,
      '-out',
      `${base}.csr`,
    ]);
    this.openssl([
      'x509',
      '-req',
      '-in',
      `${base}.csr`,
      '-CA',
      this.caFile,
      '-CAkey',
      join(this.dir, 'ca.key'),
      '-set_serial',
      String(1000 + this.serial),
      '-days',
      '1',
      '-extfile',
      `${base}.ext`,
      '-out',
      `${base}.pem`,
    ]);
    return { key: readFileSync(`${base}.key`, 'utf8'), cert: readFileSync(`${base}.pem`, 'utf8') };
  }

  /** A self-signed certificate for `name`: what no configuration here trusts. */
  selfSigned(name: string): KeyAndCertificate {
    const base = join(this.dir, `self-${++this.serial}`);
    this.openssl([
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      `/CN=${name}`,
      '-addext',
      `subjectAltName=DNS:${name}`,
      '-keyout',
      `${base}.key`,
      '-out',
      `${base}.pem`,
    ]);
    return { key: readFileSync(`${base}.key`, 'utf8'), cert: readFileSync(`${base}.pem`, 'utf8') };
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }

  private openssl(args: string[]): void {
    execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  }
}
