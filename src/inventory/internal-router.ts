import { router } from '../trpc/init.ts';
import { internalProcedure } from '../trpc/procedures.ts';
import { receiveStock } from './receive-stock.ts';
import { receiveStockInput, setStockInput } from './schemas.ts';
import { setStock } from './set-stock.ts';

/**
 * Stock maintenance for the platform's dashboards (operator credential): goods received add to a
 * variant's stock, and every store listing the product hears of it through the stock fan-out.
 */
export const inventoryInternalRouter = router({
  receiveStock: internalProcedure
    .input(receiveStockInput)
    .mutation(({ ctx, input }) => receiveStock(ctx, input)),
  setStock: internalProcedure.input(setStockInput).mutation(({ ctx, input }) => setStock(ctx, input)),
});
