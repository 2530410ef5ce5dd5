import { router } from '../trpc/init.ts';
import { internalProcedure } from '../trpc/procedures.ts';
import { addVariant } from './add-variant.ts';
import {
  addVariantInput,
  productRef,
  updateProductInput,
  updateVariantInput,
  variantRef,
} from './maintenance-schemas.ts';
import { runReadinessPass } from './readiness.ts';
import { retireVariant } from './retire-variant.ts';
import { updateProduct } from './update-product.ts';
import { updateVariant } from './update-variant.ts';
import { reinstateProduct, withdrawProduct } from './withdraw-product.ts';

/**
 * Catalogue maintenance for the platform's dashboards (operator credential). Each procedure is one
 * transaction; every store listing the product hears of it through the catalogue fan-out.
 */
export const catalogueInternalRouter = router({
  updateProduct: internalProcedure
    .input(updateProductInput)
    .mutation(({ ctx, input }) => updateProduct(ctx.em, input)),
  withdrawProduct: internalProcedure
    .input(productRef)
    .mutation(({ ctx, input }) => withdrawProduct(ctx.em, input.productId)),
  reinstateProduct: internalProcedure
    .input(productRef)
    .mutation(({ ctx, input }) => reinstateProduct(ctx.em, input.productId)),
  addVariant: internalProcedure
    .input(addVariantInput)
    .mutation(({ ctx, input }) => addVariant(ctx.em, input)),
  updateVariant: internalProcedure
    .input(updateVariantInput)
    .mutation(({ ctx, input }) => updateVariant(ctx.em, input)),
  retireVariant: internalProcedure
    .input(variantRef)
    .mutation(({ ctx, input }) => retireVariant(ctx.em, input.productId, input.variantId)),
  runReadinessPass: internalProcedure.mutation(({ ctx }) => runReadinessPass(ctx.em)),
});
