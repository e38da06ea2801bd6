/** Prints a value as pretty JSON on stdout: the stable, scriptable output of `--json`. */
export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

/** Prints rows as an aligned text table with a header. */
export function printTable(headers: string[], rows: Array<Array<string | number | null>>): void {
  const cells = [headers, ...rows.map((row) => row.map((cell) => (cell === null ? '-' : String(cell))))];
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => row[column]!.length)));
  for (const row of cells) {
    process.stdout.write(
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd() + '\n',
    );
  }
}

/** Prints `label  value` pairs aligned on the label column. */
export function printFields(fields: Array<[string, string | number | null | undefined]>): void {
  const width = Math.max(...fields.map(([label]) => label.length));
  for (const [label, value] of fields) {
    process.stdout.write(`  ${label.padEnd(width)}  ${value ?? '-'}\n`);
  }
}
