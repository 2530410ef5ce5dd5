import { router } from '../trpc/init.ts';
import { internalProcedure } from '../trpc/procedures.ts';
import { addVariant } from './add-variant.ts';
import { reinstateProduct } from './reinstate-product.ts';
import { retireVariant } from './retire-variant.ts';
import { runReadinessPass } from './run-readiness-pass.ts';
import {
  addVariantInput,
  productRef,
  updateProductInput,
  updateVariantInput,
  variantRef,
} from './schemas.ts';
import { updateProduct } from './update-product.ts';
import { updateVariant } from './update-variant.ts';
import { withdrawProduct } from './withdraw-product.ts';

/**
 * Catalogue maintenance for the platform's dashboards (operator credential). Each procedure is one
 * transaction; every store listing the product hears of it through the catalogue fan-out.
 */
export const catalogueInternalRouter = router({
  updateProduct: internalProcedure
    .input(updateProductInput)
    .mutation(({ ctx, input }) => updateProduct(ctx, input)),
  withdrawProduct: internalProcedure
    .input(productRef)
    .mutation(({ ctx, input }) => withdrawProduct(ctx, input)),
  reinstateProduct: internalProcedure
    .input(productRef)
    .mutation(({ ctx, input }) => reinstateProduct(ctx, input)),
  addVariant: internalProcedure.input(addVariantInput).mutation(({ ctx, input }) => addVariant(ctx, input)),
  updateVariant: internalProcedure
    .input(updateVariantInput)
    .mutation(({ ctx, input }) => updateVariant(ctx, input)),
  retireVariant: internalProcedure.input(variantRef).mutation(({ ctx, input }) => retireVariant(ctx, input)),
  runReadinessPass: internalProcedure.mutation(({ ctx }) => runReadinessPass(ctx)),
});
