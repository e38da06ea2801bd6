import { formatDateTime, formatRelative } from '../lib/format';

/** "5 minutes ago", with the absolute time as its title and machine-readable datetime. */
export function RelativeTime({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} title={formatDateTime(iso)}>
      {formatRelative(iso)}
    </time>
  );
}
