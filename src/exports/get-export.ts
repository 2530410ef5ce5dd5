import { rows } from '../db/sql.ts';
import { notFound } from '../errors.ts';
import type { PartnerContext } from '../trpc/context.ts';
import { authorizeRow } from './access.ts';
import { exportSettingsOf } from './create-export.ts';
import { present } from './present.ts';
import { exportQuery } from './queries.ts';
import type { GetExportInput } from './schemas.ts';

/** One export of the store in the credential's mode, its url signed afresh; another's is 404. */
export async function getExport(ctx: PartnerContext, input: GetExportInput) {
  const { em, actor } = ctx;
  const [row] = await rows(em, exportQuery(actor, input.id.slice('exp_'.length)));
  if (!row) throw notFound(`No export with id ${input.id}`, 'EXPORT_NOT_FOUND');
  authorizeRow(actor, row);
  return {
    export: await present(em, { publicUrl: ctx.settings.publicUrl, settings: exportSettingsOf(ctx) }, row),
  };
}
