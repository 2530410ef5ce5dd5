import { connect } from 'node:net';

/**
 * A request written to the socket byte for byte, for what fetch refuses or repairs (request targets
 * that are no URL, odd methods, oversized headers). Answers the status line's code, the head and the
 * body (latin1, as the wire has it).
 */
export function rawRequest(
  baseUrl: string,
  head: string,
): Promise<{ status: number; head: string; body: string }> {
  const { port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(head));
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      const headPart = split < 0 ? text : text.slice(0, split);
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(headPart)?.[1]),
        head: headPart,
        body: split < 0 ? '' : text.slice(split + 4),
      });
    });
  });
}
