import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type pg from 'pg';

/**
 * The raw baseline for `POST /api/v1/orders`: the same key lookup, variant lookup, locked
 * reservation and order writes as the API, as hand-written SQL in one transaction, with no
 * validation, no framework and no ORM.
 */
export async function rawWholesaleOrder(pool: pg.Pool, req: IncomingMessage, res: ServerResponse) {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const body = JSON.parse(Buffer.concat(chunks).toString()) as {
    customer: { email: string; name: string; phone?: string };
    items: { product_id: number; variant_id: number; quantity: number }[];
    shipping: { address: string; city: string; state: string; zip: string; country: string };
  };
  const token = (req.headers.authorization ?? '').slice(7);
  const client = await pool.connect();
  try {
    const key = await client.query(
      'SELECT store_id FROM api_keys WHERE token_hash = $1 AND revoked_at IS NULL',
      [createHash('sha256').update(token).digest('hex')],
    );
    const storeId = key.rows[0]?.store_id;
    await client.query('BEGIN');
    const ids = body.items.map((i) => i.variant_id).sort((a, b) => a - b);
    const variants = await client.query(
      `SELECT v.id, v.product_id, v.sku, p.name, v.wholesale_price_cents, v.stock_quantity
       FROM product_variants v JOIN products p ON p.id = v.product_id
       WHERE v.id = ANY($1::integer[]) ORDER BY v.id FOR UPDATE OF v`,
      [ids],
    );
    const byId = new Map(variants.rows.map((v) => [v.id, v]));
    const qty = body.items.map((i) => i.quantity);
    await client.query(
      `UPDATE product_variants v SET stock_quantity = v.stock_quantity - w.q
       FROM unnest($1::integer[], $2::integer[]) AS w(id, q) WHERE v.id = w.id AND v.stock_quantity >= w.q`,
      [body.items.map((i) => i.variant_id), qty],
    );
    const total = body.items.reduce(
      (s, i) => s + byId.get(i.variant_id).wholesale_price_cents * i.quantity,
      0,
    );
    const c = body.customer;
    const s = body.shipping;
    const order = await client.query(
      `INSERT INTO orders (store_id, order_number, order_type, channel, customer_name, customer_email, customer_phone,
         ship_address, ship_city, ship_state, ship_zip, ship_country, subtotal_cents, total_cents)
       VALUES ($1, 'SL-' || nextval('order_number_seq'), 'wholesale_api', 'direct', $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)
       RETURNING id, order_number, status, order_type, total_cents, created_at`,
      [
        storeId,
        c.name,
        c.email,
        c.phone ?? '',
        s.address,
        s.city,
        s.state,
        s.zip,
        s.country.toUpperCase(),
        total,
      ],
    );
    const orderId = order.rows[0].id;
    await client.query(
      `INSERT INTO order_lines (order_id, product_id, variant_id, sku, name, quantity, price_cents)
       SELECT $1, * FROM unnest($2::integer[], $3::integer[], $4::text[], $5::text[], $6::integer[], $7::integer[])`,
      [
        orderId,
        body.items.map((i) => i.product_id),
        body.items.map((i) => i.variant_id),
        body.items.map((i) => byId.get(i.variant_id).sku),
        body.items.map((i) => byId.get(i.variant_id).name),
        qty,
        body.items.map((i) => byId.get(i.variant_id).wholesale_price_cents),
      ],
    );
    await client.query(`INSERT INTO order_status_history (order_id, to_status) VALUES ($1, 'pending')`, [
      orderId,
    ]);
    await client.query(
      `INSERT INTO domain_events (store_id, event, entity_id, data) VALUES ($1, 'order.created', $2, '{}')`,
      [storeId, orderId],
    );
    await client.query('COMMIT');
    res.statusCode = 201;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ order: order.rows[0] }));
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    res.statusCode = 500;
    res.end(String(err));
  } finally {
    client.release();
  }
}
