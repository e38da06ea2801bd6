/** A post-sign-in destination from ?next=, only ever a path on this origin. */
export function safeNext(next: string | undefined): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  if (next.startsWith('/signin') || next.startsWith('/setup')) return '/';
  return next;
}
