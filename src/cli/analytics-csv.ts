/**
 * RFC 4180 CSV. A field is quoted when it holds a comma, a quote or a line break, or
 * starts or ends with whitespace (which some readers trim), with inner quotes doubled.
 * Paths come from the open web, so any of these can occur in one.
 */
export function csvField(value: string | number): string {
  if (typeof value === 'number') return String(value);
  return /[",\r\n]|^\s|\s$/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** One CSV record with its CRLF terminator, as RFC 4180 specifies. */
export function csvRow(values: ReadonlyArray<string | number>): string {
  return `${values.map(csvField).join(',')}\r\n`;
}
