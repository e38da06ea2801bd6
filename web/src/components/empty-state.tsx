import type { ComponentChildren } from 'preact';

export function EmptyState({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty-state">
      <h2 class="empty-title">{title}</h2>
      {children}
    </div>
  );
}
