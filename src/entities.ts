import {
  Brand,
  Category,
  Listing,
  Product,
  ProductDrawing,
  ProductImage,
  ProductOption,
  ProductVariant,
  StoreType,
  Supplier,
} from './catalogue/entities.ts';
import { PlatformFeature } from './platform/entities.ts';
import { ApiKey, Store, StoreDepartment, StoreMaker } from './store/entities.ts';

/** Every entity the ORM knows; discovery is explicit so nothing depends on file globbing. */
export const entities = [
  Store,
  StoreDepartment,
  StoreMaker,
  ApiKey,
  PlatformFeature,
  StoreType,
  Category,
  Brand,
  Supplier,
  Product,
  ProductVariant,
  ProductOption,
  ProductImage,
  ProductDrawing,
  Listing,
];
