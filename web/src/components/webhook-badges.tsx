import type { DeliveryStatus } from '../api/webhooks-api';

/** Enabled or disabled, in words (never colour alone). */
export function EnabledBadge({ enabled }: { enabled: boolean }) {
  return (
    <span class={`badge ${enabled ? 'badge-completed' : 'badge-archived'}`} data-enabled={String(enabled)}>
      {enabled ? 'Enabled' : 'Disabled'}
    </span>
  );
}

const DELIVERY: Record<DeliveryStatus, { label: string; badge: string }> = {
  pending: { label: 'Pending', badge: 'badge-active' },
  succeeded: { label: 'Delivered', badge: 'badge-completed' },
  failed: { label: 'Failed', badge: 'badge-failed' },
};

export function DeliveryBadge({ status }: { status: DeliveryStatus }) {
  return (
    <span class={`badge ${DELIVERY[status].badge}`} data-status={status}>
      {DELIVERY[status].label}
    </span>
  );
}
