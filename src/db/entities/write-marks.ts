import { defineEntity, p } from '@mikro-orm/core';

/** A credential's last write position on the primary (src/auth/write-marks.ts). */
export const CredentialWriteMark = defineEntity({
  name: 'CredentialWriteMark',
  tableName: 'credential_write_marks',
  properties: {
    credential: p.text().primary(),
    lsn: p.unknown().columnType('pg_lsn'),
    writtenAt: p.datetime(),
  },
});
