/**
 * A throwaway certificate for a loopback https site in a benchmark: made by openssl (Debian's `openssl`
 * package) in a temp dir, for 127.0.0.1 only, valid one day. Browsers are told to accept it by its key's hash
 * (--ignore-certificate-errors-spki-list), which trusts this one key and nothing else.
 */
import { execFileSync } from 'node:child_process';
import { createHash, createPublicKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface LoopbackCert {
  key: string;
  cert: string;
  /** The Chromium switch that accepts this certificate's key and no other. */
  chromiumSwitch: string;
}

export function loopbackCert(): LoopbackCert {
  const dir = mkdtempSync(join(tmpdir(), 'browserd-bench-cert-'));
  try {
    const keyFile = join(dir, 'key.pem');
    const certFile = join(dir, 'cert.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
    const cert = readFileSync(certFile, 'utf8');
    const spki = createPublicKey(cert).export({ type: 'spki', format: 'der' });
    return { key: readFileSync(keyFile, 'utf8'), cert, chromiumSwitch: `--ignore-certificate-errors-spki-list=${createHash('sha256').update(spki).digest('base64')}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
