import { defineEntity, p } from '@mikro-orm/core';

export const PlatformFeature = defineEntity({
  name: 'PlatformFeature',
  tableName: 'platform_features',
  properties: {
    name: p.text().primary(),
    enabled: p.boolean(),
    updatedAt: p.datetime().defaultRaw(`now()`),
  },
});

export const PlatformSecret = defineEntity({
  name: 'PlatformSecret',
  tableName: 'platform_secrets',
  properties: {
    name: p.text().primary(),
    value: p.blob(),
  },
});
