import { z } from 'zod';
import { catalogueInternalRouter } from '../catalogue/internal-router.ts';
import { runReadinessPass } from '../catalogue/readiness.ts';
import { listHeldPosts } from '../external-orders/held.ts';
import { mapSku } from '../external-orders/skus.ts';
import { inventoryInternalRouter } from '../inventory/internal-router.ts';
import { setStock } from '../inventory/stock.ts';
import { listingsInternalRouter } from '../listings/internal-router.ts';
import { createOwnGoods, listOwnGoods } from '../listings/own-goods.ts';
import { listMail } from '../mail/list.ts';
import { uninstallApp } from '../oauth/tokens.ts';
import { createUser } from '../oauth/users.ts';
import { customerInput, ORDER_CHANNELS, ORDER_STATUSES, shippingInput } from '../orders/schemas.ts';
import { checkoutStorefront } from '../orders/storefront.ts';
import { advanceOrder } from '../orders/transitions.ts';
import { FEATURES, setFeature } from '../platform/features.ts';
import { createApiKey, revokeApiKey } from '../store/api-keys.ts';
import { setPublished } from '../store/publish.ts';
import { createStore } from '../store/service.ts';
import { router } from '../trpc/init.ts';
import { idParam, PG_INT_MAX } from '../trpc/params.ts';
import { internalProcedure } from '../trpc/procedures.ts';

/** Operator and dashboard procedures. Never exposed as REST, never in the partner contract. */
export const internalRouter = router({
  catalogue: catalogueInternalRouter,
  listings: listingsInternalRouter,
  inventory: inventoryInternalRouter,

  createStore: internalProcedure
    .input(
      z.object({
        name: z.string().trim().min(1).max(200),
        slug: z
          .string()
          .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/)
          .max(60)
          .optional(),
        ownerEmail: z.email().optional(),
        catalogueScope: z.enum(['all', 'store']).optional(),
      }),
    )
    .mutation(({ ctx, input }) => createStore(ctx.em, input)),

  createApiKey: internalProcedure
    .input(
      z.object({
        storeId: idParam,
        scope: z.enum(['read', 'read_write']),
        mode: z.enum(['live', 'test']).default('live'),
        name: z.string().max(100).optional(),
      }),
    )
    .mutation(({ ctx, input }) => createApiKey(ctx.em, input)),

  revokeApiKey: internalProcedure
    .input(z.object({ id: idParam }))
    .mutation(({ ctx, input }) => revokeApiKey(ctx.em, input.id)),

  setPlatformFeature: internalProcedure
    .input(z.object({ feature: z.enum(FEATURES), enabled: z.boolean() }))
    .mutation(({ ctx, input }) => setFeature(ctx.em, input.feature, input.enabled)),

  createUser: internalProcedure
    .input(z.object({ storeId: idParam, email: z.email().max(200), password: z.string().min(10).max(200) }))
    .mutation(({ ctx, input }) => createUser(ctx.em, input)),

  uninstallApp: internalProcedure
    .input(z.object({ storeId: idParam, clientId: z.string().min(1).max(100) }))
    .mutation(({ ctx, input }) => uninstallApp(ctx.em, input.storeId, input.clientId)),

  setStorePublished: internalProcedure
    .input(z.object({ storeId: idParam, published: z.boolean() }))
    .mutation(({ ctx, input }) => setPublished(ctx.em, input.storeId, input.published)),

  runReadinessPass: internalProcedure.mutation(({ ctx }) => runReadinessPass(ctx.em)),

  createOwnGoods: internalProcedure
    .input(
      z.object({
        storeId: idParam,
        sku: z.string().trim().min(1).max(64),
        name: z.string().trim().min(1).max(200),
        priceCents: z.int().min(0).max(PG_INT_MAX),
        costCents: z.int().min(0).max(PG_INT_MAX).optional(),
        stock: z.int().min(0).max(PG_INT_MAX),
      }),
    )
    .mutation(({ ctx, input }) => createOwnGoods(ctx.em, input)),

  checkoutStorefront: internalProcedure
    .input(
      z.object({
        storeId: idParam,
        channel: z.enum(ORDER_CHANNELS).default('direct'),
        customer: customerInput,
        shipping: shippingInput,
        items: z
          .array(
            z.object({
              product_id: idParam,
              variant_id: idParam.optional(),
              quantity: z.int().min(1).max(10_000),
            }),
          )
          .min(1)
          .max(100),
      }),
    )
    .mutation(({ ctx, input }) => checkoutStorefront(ctx.em, input)),

  advanceOrder: internalProcedure
    .input(
      z.object({
        orderId: idParam,
        status: z.enum(ORDER_STATUSES),
        tracking: z.string().trim().min(1).max(100).optional(),
        note: z.string().max(500).optional(),
      }),
    )
    .mutation(({ ctx, input }) =>
      advanceOrder(ctx.em, input.orderId, input.status, { tracking: input.tracking, note: input.note }),
    ),

  setStock: internalProcedure
    .input(
      z.object({
        productId: idParam,
        variantId: idParam.optional(),
        quantity: z.int().min(0).max(PG_INT_MAX),
      }),
    )
    .mutation(({ ctx, input }) => setStock(ctx.em, input.productId, input.quantity, input.variantId)),

  mapSku: internalProcedure
    .input(
      z.object({
        storeId: idParam,
        sku: z.string().trim().min(1).max(64),
        productId: idParam,
        variantId: idParam.optional(),
      }),
    )
    .mutation(({ ctx, input }) => mapSku(ctx.em, input.storeId, input.sku, input.productId, input.variantId)),

  listHeldExternalOrders: internalProcedure
    .input(z.object({ storeId: idParam }))
    .query(({ ctx, input }) => listHeldPosts(ctx.em, input.storeId)),

  listMail: internalProcedure
    .input(z.object({ status: z.enum(['queued', 'sent', 'held', 'failed']).optional() }))
    .query(({ ctx, input }) => listMail(ctx.em, input.status)),

  listOwnGoods: internalProcedure
    .input(z.object({ storeId: idParam }))
    .query(({ ctx, input }) => listOwnGoods(ctx.em, input.storeId)),
});
