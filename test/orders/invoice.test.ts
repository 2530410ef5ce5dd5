import { createServer, type Server } from 'node:net';
import type { JobHelpers, Task } from 'graphile-worker';
import { SMTPServer } from 'smtp-server';
import { extractText } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorBody, GetOrderResponse } from '../../client/src/index.ts';
import { createTaskList } from '../../jobs/tasks.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { advanceOrder } from '../../src/orders/advance-order.ts';
import { checkoutStorefront } from '../../src/orders/checkout-storefront.ts';
import { startTestApp, TEST_MAIL, TEST_WEBHOOKS, type TestApp } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';

/**
 * The buyer's tax invoice: `GET /api/v1/orders/{id}/invoice` (PDF) and the invoice email through
 * the mail outbox and the `send_mail` task, against a real local SMTP server.
 *
 * The order: LAMP 1 × $123.45 + CUSHION 2 × $86.72 = $296.89, of which GST (one eleventh) is $26.99.
 */

const STORE_NAME = 'Harbour Lights Homewares';
const TOTAL_CENTS = 12345 + 2 * 8672;

let app: TestApp;
type StoreKeys = Awaited<ReturnType<TestApp['createStore']>>;
let store: StoreKeys;
let other: StoreKeys;
let supplierId: number;
let lamp: number;
let cushion: number;
let buyerSeq = 0;

const SHIPPING = {
  address: '12 Wharf Road',
  address2: 'Unit 4',
  city: 'Balmain',
  state: 'NSW',
  zip: '2041',
  country: 'AU',
};

/** A storefront order of the store (lamp ×1, cushion ×2) with its own buyer. */
async function placeOrder(storeId = store.id, emailUser = 'buyer') {
  const email = `${emailUser}${++buyerSeq}@example.com`;
  const order = await checkoutStorefront(
    { em: app.em() },
    {
      storeId,
      channel: 'direct',
      customer: { email, name: `Buyer Number${buyerSeq}`, phone: '' },
      shipping: SHIPPING,
      items: [
        { product_id: lamp, quantity: 1 },
        { product_id: cushion, quantity: 2 },
      ],
    },
  );
  return { id: order.id, orderNumber: order.order_number, email, total: order.total_cents };
}

async function toFulfilled(orderId: number) {
  await advanceOrder({ em: app.em() }, { orderId, status: 'processing' });
  await advanceOrder({ em: app.em() }, { orderId, status: 'fulfilled' });
}

async function ship(orderId: number, tracking = `TRK-${orderId}`) {
  const r = await advanceOrder({ em: app.em() }, { orderId, status: 'shipped', tracking });
  if (!r.invoice_number) throw new Error('shipping issued no invoice');
  return r.invoice_number;
}

async function shippedOrder(storeId = store.id, emailUser = 'buyer') {
  const order = await placeOrder(storeId, emailUser);
  await toFulfilled(order.id);
  const invoice = await ship(order.id);
  return { ...order, invoice };
}

async function invoiceOf(orderId: number) {
  const [row] = await rows<{ invoice_number: string | null }>(
    app.em(),
    sql`SELECT invoice_number FROM orders WHERE id = ${orderId}`,
  );
  return row?.invoice_number ?? null;
}

/** The JSON body of the invoice route's refusals (the contract's error body). */
async function json(res: Response): Promise<ErrorBody | undefined> {
  const text = await res.text();
  return text ? JSON.parse(text) : undefined;
}

interface MailRow {
  id: number;
  store_id: number | null;
  kind: string;
  to_address: string;
  subject: string;
  text_body: string;
  order_id: number | null;
  status: string;
  attempts: number;
  last_error: string | null;
  sent: boolean;
}

async function mailOf(orderId: number): Promise<MailRow[]> {
  return rows<MailRow>(
    app.em(),
    sql`SELECT id, store_id, kind, to_address, subject, text_body, order_id, status, attempts, last_error,
        sent_at IS NOT NULL AS sent
      FROM mail_outbox WHERE order_id = ${orderId} ORDER BY id`,
  );
}

async function sendMailJobs() {
  return rows<{ task_identifier: string; key: string | null }>(
    app.em(),
    sql`SELECT task_identifier, key FROM graphile_worker.jobs WHERE task_identifier = 'send_mail'`,
  );
}

function fakeHelpers() {
  const info: string[] = [];
  const helpers = {
    logger: { info: (m: string) => info.push(m), debug: () => {} },
  } as unknown as JobHelpers;
  return { helpers, info };
}

/** Runs the send_mail task once, as the worker would. */
async function runSendMail(settings: Parameters<typeof createTaskList>[1]) {
  const { helpers, info } = fakeHelpers();
  await (createTaskList(app.orm, settings, TEST_WEBHOOKS).send_mail as Task)({}, helpers);
  return info;
}

/** Marks any mail other tests left queued as held, so a test sees only its own. */
async function drainQueued() {
  await rows(app.em(), sql`UPDATE mail_outbox SET status = 'held' WHERE status = 'queued'`);
}

async function pdfText(buf: ArrayBuffer): Promise<string> {
  const { text } = await extractText(new Uint8Array(buf), { mergePages: true });
  return text.replace(/\s+/g, ' ');
}

beforeAll(async () => {
  app = await startTestApp();
  store = await app.createStore(STORE_NAME);
  other = await app.createStore('Some Other Store');
  const fx = fixtures(app.em());
  supplierId = await fx.supplier();
  lamp = await fx.product({
    supplierId,
    name: 'Brass Desk Lamp',
    sku: 'LAMP-01',
    retail: 12345,
    stock: [500],
  });
  cushion = await fx.product({
    supplierId,
    name: 'Linen Throw Cushion',
    sku: 'CUSH-02',
    retail: 8672,
    stock: [500],
  });
  for (const s of [store, other]) {
    await fx.listing(s.id, lamp);
    await fx.listing(s.id, cushion);
  }
});
afterAll(() => app.close());

describe('GET /api/v1/orders/{id}/invoice', () => {
  it('is 404 INVOICE_NOT_ISSUED before the order ships, saying it is issued when it ships', async () => {
    const order = await placeOrder();
    const check = async () => {
      const res = await app.request(`/api/v1/orders/${order.id}/invoice`, { key: store.readWrite });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const body = await json(res);
      expect(body).toMatchObject({ error: 'not_found', code: 'INVOICE_NOT_ISSUED' });
      expect(body?.message).toMatch(/issued when the order ships/);
    };
    await check(); // pending
    await toFulfilled(order.id);
    await check(); // fulfilled
    const cancelled = await placeOrder();
    await advanceOrder({ em: app.em() }, { orderId: cancelled.id, status: 'cancelled' });
    const res = await app.request(`/api/v1/orders/${cancelled.id}/invoice`, { key: store.read });
    expect(res.status).toBe(404);
    expect((await json(res))?.code).toBe('INVOICE_NOT_ISSUED');
  });

  it('answers the PDF once shipped, named after the invoice number on the order', async () => {
    const order = await shippedOrder();
    expect(order.invoice).toMatch(/^INV-\d{6}-\d{6}$/);
    expect(await invoiceOf(order.id)).toBe(order.invoice);
    const res = await app.request(`/api/v1/orders/${order.id}/invoice`, { key: store.readWrite });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe(`inline; filename="${order.invoice}.pdf"`);
    const buf = await res.arrayBuffer();
    expect(Number(res.headers.get('content-length'))).toBe(buf.byteLength);
    expect(Buffer.from(buf).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    // The order answer shows the same number.
    const detail = await app.get<GetOrderResponse>(`/api/v1/orders/${order.id}`, store.readWrite);
    expect(detail.status).toBe(200);
    expect(detail.body.order.invoice_number).toBe(order.invoice);
    expect(detail.body.order.invoice_issued_at).toEqual(expect.any(String));
  });

  it('is a real Australian tax invoice: Stockless as merchant of record, the store as channel, lines, total, GST', async () => {
    const order = await shippedOrder();
    expect(order.total).toBe(TOTAL_CENTS);
    const res = await app.request(`/api/v1/orders/${order.id}/invoice`, { key: store.readWrite });
    expect(res.status).toBe(200);
    const text = await pdfText(await res.arrayBuffer());
    expect(text).toContain('Tax Invoice');
    expect(text).toContain(order.invoice);
    expect(text).toContain(order.orderNumber);
    expect(text).toContain('Stockless Pty Ltd');
    expect(text).toMatch(/ABN \d{2} ?\d{3} ?\d{3} ?\d{3}/);
    expect(text).toMatch(new RegExp(`${STORE_NAME} \\(channel of sale\\)`));
    expect(text).toContain(`Buyer Number${order.email.match(/\d+/)?.[0]}`);
    expect(text).toMatch(/Brass Desk Lamp \(LAMP-01\) 1 \$123\.45 \$123\.45/);
    expect(text).toMatch(/Linen Throw Cushion \(CUSH-02\) 2 \$86\.72 \$173\.44/);
    expect(text).toMatch(/Total \(AUD, GST inclusive\) \$296\.89/);
    expect(text).toMatch(/GST included \(10%\) \$26\.99/);
  });

  it('HEAD answers the same status and headers with no body', async () => {
    const order = await shippedOrder();
    const get = await app.request(`/api/v1/orders/${order.id}/invoice`, { key: store.read });
    const getBody = await get.arrayBuffer();
    const head = await app.request(`/api/v1/orders/${order.id}/invoice`, { key: store.read, method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('application/pdf');
    expect(head.headers.get('content-disposition')).toBe(`inline; filename="${order.invoice}.pdf"`);
    expect(Number(head.headers.get('content-length'))).toBe(getBody.byteLength);
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    const early = await placeOrder();
    const headEarly = await app.request(`/api/v1/orders/${early.id}/invoice`, {
      key: store.read,
      method: 'HEAD',
    });
    expect(headEarly.status).toBe(404);
  });

  it('needs a credential: 401 with WWW-Authenticate without a key or with a bad one', async () => {
    const order = await shippedOrder();
    for (const key of [undefined, 'sl_test_not_a_real_key_aaaaaaaaaaaaaaaaaaaa']) {
      const res = await app.request(`/api/v1/orders/${order.id}/invoice`, { key });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
      expect(res.headers.get('content-type')).not.toBe('application/pdf');
      expect(await json(res)).toMatchObject({ error: 'unauthorized' });
    }
  });

  it("is 404 for another store's order, shipped or not", async () => {
    const theirs = await shippedOrder(other.id);
    const ours = await shippedOrder();
    for (const [id, key] of [
      [theirs.id, store.readWrite],
      [ours.id, other.read],
    ] as const) {
      const res = await app.request(`/api/v1/orders/${id}/invoice`, { key });
      expect(res.status).toBe(404);
      const body = await json(res);
      expect(body).toMatchObject({ error: 'not_found', code: 'ORDER_NOT_FOUND' });
      expect(JSON.stringify(body)).not.toContain('INV-');
    }
    // Each store still gets its own.
    expect((await app.request(`/api/v1/orders/${theirs.id}/invoice`, { key: other.read })).status).toBe(200);
    const missing = await app.request('/api/v1/orders/2000000000/invoice', { key: store.read });
    expect(missing.status).toBe(404);
    expect((await json(missing))?.code).toBe('ORDER_NOT_FOUND');
  });

  it('is 400 for an id that is not a positive integer', async () => {
    for (const id of ['abc', '0', '-1', '1.5', '01', '2147483648', '99999999999']) {
      const res = await app.request(`/api/v1/orders/${id}/invoice`, { key: store.read });
      expect(res.status, id).toBe(400);
      expect(await json(res)).toMatchObject({ error: 'bad_request' });
    }
  });

  it('serves a read key; refuses other methods with 405 and Allow', async () => {
    const order = await shippedOrder();
    const res = await app.request(`/api/v1/orders/${order.id}/invoice`, { key: store.read });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    const post = await app.request(`/api/v1/orders/${order.id}/invoice`, {
      key: store.readWrite,
      method: 'POST',
    });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toContain('GET');
    expect(await post.json()).toMatchObject({ error: 'method_not_allowed', code: 'METHOD_NOT_ALLOWED' });
  });
});

describe('the invoice email', () => {
  it('shipping queues one invoice mail to the buyer and a send_mail job, in the same transaction', async () => {
    await drainQueued();
    await rows(app.em(), sql`SELECT graphile_worker.remove_job('send_mail')`);
    expect(await sendMailJobs()).toEqual([]);

    // A shipping transaction that rolls back leaves neither.
    const rolled = await placeOrder();
    await toFulfilled(rolled.id);
    await expect(
      app.em().transactional(async (tx) => {
        await advanceOrder({ em: tx }, { orderId: rolled.id, status: 'shipped', tracking: 'TRK-RB' });
        throw new Error('rollback');
      }),
    ).rejects.toThrow('rollback');
    expect(await mailOf(rolled.id)).toEqual([]);
    expect(await sendMailJobs()).toEqual([]);

    const order = await placeOrder();
    await toFulfilled(order.id);
    expect(await mailOf(order.id)).toEqual([]);
    const invoice = await ship(order.id, 'TRK-MAIL');
    expect(await mailOf(order.id)).toEqual([
      {
        id: expect.any(Number),
        store_id: store.id,
        kind: 'invoice',
        to_address: order.email,
        subject: expect.stringContaining(invoice),
        text_body: expect.stringContaining(invoice),
        order_id: order.id,
        status: 'queued',
        attempts: 0,
        last_error: null,
        sent: false,
      },
    ]);
    expect(await sendMailJobs()).toEqual([{ task_identifier: 'send_mail', key: 'send_mail' }]);
    // Delivery sends nothing more.
    await advanceOrder({ em: app.em() }, { orderId: order.id, status: 'delivered' });
    expect(await mailOf(order.id)).toHaveLength(1);
  });

  it('without SMTP the send_mail task holds the message for an operator', async () => {
    await drainQueued();
    const order = await shippedOrder();
    expect((await mailOf(order.id))[0]?.status).toBe('queued');
    const info = await runSendMail(TEST_MAIL);
    expect(await mailOf(order.id)).toEqual([
      expect.objectContaining({ status: 'held', attempts: 0, sent: false, last_error: null }),
    ]);
    expect(info.join('\n')).toMatch(/1 held/);
    // Nothing left: a second run does nothing.
    expect(await runSendMail(TEST_MAIL)).toEqual([]);
  });

  describe('with an SMTP server', () => {
    interface Received {
      from: string | undefined;
      to: string[];
      raw: string;
    }
    const received: Received[] = [];
    let smtp: SMTPServer;
    let smtpUrl: string;

    beforeAll(async () => {
      smtp = new SMTPServer({
        authOptional: true,
        disabledCommands: ['STARTTLS', 'AUTH'],
        logger: false,
        // A mailbox that does not exist: refused for good (550), as a real server would.
        onRcptTo(address, _session, callback) {
          if (address.address.startsWith('nobody')) {
            const err = Object.assign(new Error('5.1.1 No such user'), { responseCode: 550 });
            return callback(err);
          }
          callback();
        },
        onData(stream, session, callback) {
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            received.push({
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined,
              to: session.envelope.rcptTo.map((r) => r.address),
              raw: Buffer.concat(chunks).toString('utf8'),
            });
            callback();
          });
        },
      });
      await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
      const address = smtp.server.address();
      smtpUrl = `smtp://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    });
    afterAll(() => new Promise<void>((resolve) => smtp.close(() => resolve())));

    it('delivers the invoice to the buyer with the PDF attached, and marks it sent', async () => {
      await drainQueued();
      received.length = 0;
      const order = await shippedOrder();
      const info = await runSendMail({ ...TEST_MAIL, smtpUrl });
      expect(info.join('\n')).toMatch(/1 sent/);
      expect(received).toHaveLength(1);
      const mail = received[0] as Received;
      expect(mail.to).toEqual([order.email]);
      expect(mail.from).toBe('invoices@stockless.test');
      const [head = '', ...rest] = mail.raw.split(/\r?\n\r?\n/);
      const headers = head.replace(/\r?\n[ \t]+/g, ' ');
      expect(headers).toMatch(new RegExp(`^Subject: .*${order.invoice}`, 'm'));
      expect(headers).toMatch(new RegExp(`^To: .*${order.email}`, 'm'));
      expect(rest.join('\n\n')).toContain(order.orderNumber);
      // The attachment: a PDF named after the invoice, whose text carries the invoice number.
      const part = mail.raw
        .split(/\r?\n--/)
        .find((p) => /Content-Type: application\/pdf/i.test(p.replace(/\r?\n[ \t]+/g, ' ')));
      expect(part, mail.raw.slice(0, 2000)).toBeDefined();
      const unfolded = (part ?? '').replace(/\r?\n[ \t]+/g, ' ');
      expect(unfolded).toMatch(new RegExp(`filename="?${order.invoice}\\.pdf"?`));
      expect(unfolded).toMatch(/Content-Transfer-Encoding: base64/i);
      const b64 = (part ?? '')
        .split(/\r?\n\r?\n/)
        .slice(1)
        .join('')
        .replace(/\s+/g, '');
      const pdf = Buffer.from(b64, 'base64');
      expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      const text = await pdfText(pdf.buffer.slice(pdf.byteOffset, pdf.byteOffset + pdf.byteLength));
      expect(text).toContain(order.invoice);
      expect(text).toContain('$296.89');

      expect(await mailOf(order.id)).toEqual([
        expect.objectContaining({ status: 'sent', attempts: 1, sent: true, last_error: null }),
      ]);
      // Sent once only.
      await runSendMail({ ...TEST_MAIL, smtpUrl });
      expect(received).toHaveLength(1);
    });

    it('an unreachable SMTP server: the message stays queued, backs off on its own and is sent once due and reachable', async () => {
      await drainQueued();
      received.length = 0;
      const closedPort = await new Promise<number>((resolve) => {
        const probe: Server = createServer();
        probe.listen(0, '127.0.0.1', () => {
          const address = probe.address();
          const port = typeof address === 'object' && address ? address.port : 0;
          probe.close(() => resolve(port));
        });
      });
      const order = await shippedOrder();
      const down = { ...TEST_MAIL, smtpUrl: `smtp://127.0.0.1:${closedPort}` };
      await runSendMail(down);
      const [row] = await mailOf(order.id);
      expect(row).toMatchObject({ status: 'queued', attempts: 1, sent: false });
      expect(row?.last_error).toEqual(expect.any(String));
      expect(row?.last_error?.length).toBeGreaterThan(0);
      // It backs off on its own: a run before it is due does not spend another attempt…
      const [wait] = await rows<{ minutes: number }>(
        app.em(),
        sql`SELECT round(extract(epoch FROM next_attempt_at - now()) / 60)::integer AS minutes
          FROM mail_outbox WHERE order_id = ${order.id}`,
      );
      expect(wait?.minutes).toBe(1);
      // (Graphile has consumed the job that woke this run.)
      await rows(app.em(), sql`SELECT graphile_worker.remove_job('send_mail')`);
      await runSendMail(down);
      expect((await mailOf(order.id))[0]).toMatchObject({ status: 'queued', attempts: 1 });
      // …and a retry job is scheduled for when it is due.
      const [job] = await rows<{ n: number }>(
        app.em(),
        sql`SELECT count(*)::integer AS n FROM graphile_worker.jobs WHERE key = 'send_mail' AND run_at > now()`,
      );
      expect(job?.n).toBe(1);
      const due = () =>
        rows(app.em(), sql`UPDATE mail_outbox SET next_attempt_at = now() WHERE order_id = ${order.id}`);
      await due();
      await runSendMail(down);
      expect((await mailOf(order.id))[0]).toMatchObject({ status: 'queued', attempts: 2 });
      // Once the server is back and the message is due, it is sent.
      await due();
      await runSendMail({ ...TEST_MAIL, smtpUrl });
      expect((await mailOf(order.id))[0]).toMatchObject({ status: 'sent', attempts: 3, sent: true });
      expect(received.map((m) => m.to)).toEqual([[order.email]]);
    });

    // A message the server refuses for good (5xx) is marked failed and the queue moves on.
    it("a message the server refuses for good does not hold up the next buyer's invoice", async () => {
      await drainQueued();
      received.length = 0;
      const refused = await shippedOrder(store.id, 'nobody');
      const good = await shippedOrder();
      // The worker runs the job again after a failure (Graphile retries); give it a few runs.
      for (let i = 0; i < 3; i++) await runSendMail({ ...TEST_MAIL, smtpUrl }).catch(() => undefined);
      expect((await mailOf(refused.id))[0]?.last_error).toMatch(/No such user|550/);
      // Refused for good: marked failed (never retried), after one attempt.
      expect((await mailOf(refused.id))[0]).toMatchObject({ status: 'failed', attempts: 1 });
      expect((await mailOf(good.id))[0]).toMatchObject({ status: 'sent', sent: true });
      expect(received.map((m) => m.to)).toEqual([[good.email]]);
    });
  });
});
