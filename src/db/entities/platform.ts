import { defineEntity, type InferEntity, p } from '@mikro-orm/core';

export const PlatformFeature = defineEntity({
  name: 'PlatformFeature',
  tableName: 'platform_features',
  properties: {
    name: p.text().primary(),
    enabled: p.boolean(),
    updatedAt: p.datetime().defaultRaw(`now()`),
  },
});
export type IPlatformFeature = InferEntity<typeof PlatformFeature>;

export const PlatformSecret = defineEntity({
  name: 'PlatformSecret',
  tableName: 'platform_secrets',
  properties: {
    name: p.text().primary(),
    value: p.blob(),
  },
});
export type IPlatformSecret = InferEntity<typeof PlatformSecret>;
