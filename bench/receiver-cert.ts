import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';

/**
 * A self-signed certificate for the benches' local HTTPS receivers, valid for 127.0.0.1 and the
 * given host names, and a file holding it for the workers' NODE_EXTRA_CA_CERTS.
 */
export async function receiverCertificate(hostnames: readonly string[] = []) {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, keyCertSign: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 7 as const, ip: '127.0.0.1' },
          ...hostnames.map((value) => ({ type: 2 as const, value })),
        ],
      },
    ],
  });
  const caFile = join(await mkdtemp(join(tmpdir(), 'stockless-bench-ca-')), 'ca.pem');
  await writeFile(caFile, pems.cert);
  return { key: pems.private, cert: pems.cert, caFile };
}
