import { defineEntity, p } from '@mikro-orm/core';

export const RateLimit = defineEntity({
  name: 'RateLimit',
  tableName: 'rate_limits',
  properties: {
    key: p.text().primary(),
    tat: p.datetime(),
  },
});
