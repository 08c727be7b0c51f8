// Shapes of the self-service routes: the listing body is the admin provider body (without an owner:
// the caller owns what it lists); a listing is the admin view plus the change waiting for review.
import { Type } from '@sinclair/typebox';
import { Envelope, MetaSchema } from '../../http/envelope.js';
import { AdminProviderView, CreatedProviderView } from '../catalog/index.js';

export const PendingChangeView = Type.Object({
  requested_at: Type.String(),
  /** The body as submitted; it replaces the live version when an operator approves it. */
  listing: Type.Record(Type.String(), Type.Unknown()),
});

export const ListingView = Type.Object({
  ...AdminProviderView.properties,
  pending_change: Type.Union([PendingChangeView, Type.Null()]),
});

export const ListingResponse = Envelope(ListingView);
export const ListingListResponse = Type.Object({ data: Type.Array(ListingView), meta: MetaSchema });
export const CreatedListingResponse = Envelope(CreatedProviderView);
export const ApprovedProviderResponse = Envelope(AdminProviderView);
export const DeletedListingResponse = Envelope(
  Type.Object({ provider_id: Type.String(), deleted: Type.Literal(true) }),
);

export const PayoutWalletBody = Type.Object(
  { wallet_address: Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' }) },
  { additionalProperties: false },
);
export const PayoutWalletResponse = Envelope(
  Type.Object({
    wallet_address: Type.Union([Type.String(), Type.Null()]),
    updated_at: Type.Union([Type.String(), Type.Null()]),
  }),
);
