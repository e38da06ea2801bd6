/**
 * The text without leading and trailing `/`. A loop, not `replace(/\/+$/, '')`: that
 * pattern retries from every slash of a long run that does not end the string, which is
 * quadratic on hostile input.
 */
export function trimSlashes(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) === 0x2f) start += 1;
  while (end > start && text.charCodeAt(end - 1) === 0x2f) end -= 1;
  return text.slice(start, end);
}
