/**
 * A webhook receiver that verifies every delivery's signature with the SDK before trusting it.
 *
 *   npm run example -- webhook-receiver
 *
 * Settings (environment):
 * - STOCKLESS_WEBHOOK_SECRET: the subscription's `whsec_…` secret. Unset: the receiver subscribes
 *   itself with STOCKLESS_URL / STOCKLESS_API_KEY (to every event), uses the secret the API returns
 *   once, sends itself a `webhook.ping`, and deletes the subscription on Ctrl-C.
 * - PORT (default 4000); TLS_CERT and TLS_KEY (PEM files): serve https, which Stockless requires of
 *   subscription URLs. Without them it serves plain http (behind your own TLS proxy or tunnel).
 * - WEBHOOK_URL: the URL Stockless calls (default https://127.0.0.1:$PORT/webhooks).
 */
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { SIGNATURE_HEADER, verifyWebhook, WebhookVerificationError } from '@stockless/sdk';
import { clientFromEnv } from './shared.ts';

const port = Number(process.env.PORT ?? 4000);
const webhookUrl = process.env.WEBHOOK_URL ?? `https://127.0.0.1:${port}/webhooks`;
let secret = process.env.STOCKLESS_WEBHOOK_SECRET ?? '';
/** Deliveries can repeat: remember the event keys already handled (a database in real life). */
const handled = new Set<string>();

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function handle(req: IncomingMessage, res: ServerResponse) {
  if (req.method !== 'POST') return res.writeHead(405).end();
  // Verify the raw bytes: never JSON.parse and re-serialise before checking the signature.
  const raw = await readBody(req);
  try {
    const event = verifyWebhook(raw, req.headers[SIGNATURE_HEADER], secret, { tolerance: 300 });
    if (handled.has(event.event_key)) {
      console.log(`duplicate ${event.event} (${event.event_key}), ignored`);
    } else {
      handled.add(event.event_key);
      // product.* and inventory.updated carry ids only: re-read the product or stock from the API.
      console.log(`${event.event} ${event.event_key} ${JSON.stringify(event.data).slice(0, 200)}`);
    }
    res.writeHead(200).end();
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    console.warn(`refused a delivery: ${error.reason} (${error.message})`);
    res.writeHead(400).end();
  }
}

const listener = (req: IncomingMessage, res: ServerResponse) =>
  void handle(req, res).catch((error: unknown) => {
    console.error(error);
    if (!res.headersSent) res.writeHead(500).end();
  });
const tls = process.env.TLS_CERT && process.env.TLS_KEY;
const server = tls
  ? createHttpsServer(
      { cert: readFileSync(process.env.TLS_CERT ?? ''), key: readFileSync(process.env.TLS_KEY ?? '') },
      listener,
    )
  : createHttpServer(listener);
await new Promise<void>((done) => server.listen(port, done));
console.log(`listening on ${tls ? 'https' : 'http'}://localhost:${port}`);

if (!secret) {
  const stockless = clientFromEnv();
  const { webhook } = await stockless.webhooks.create({ url: webhookUrl, events: ['*'] });
  secret = webhook.secret;
  console.log(`subscribed ${webhookUrl} (webhook ${webhook.id}); sending a test ping`);
  await stockless.webhooks.test(webhook.id);
  process.once('SIGINT', () => {
    console.log(`\ndeleting webhook ${webhook.id}`);
    stockless.webhooks.delete(webhook.id).finally(() => process.exit(0));
  });
}
