import { defineEntity, p } from '@mikro-orm/core';

export const PlatformFeature = defineEntity({
  name: 'PlatformFeature',
  tableName: 'platform_features',
  properties: {
    name: p.string().primary(),
    enabled: p.boolean(),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
