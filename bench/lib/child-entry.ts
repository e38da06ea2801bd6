/**
 * Runs one exported async function of a module in this (child) process and sends back
 * its result; see run-in-child.ts. The module path and arguments arrive as the first
 * IPC message.
 */
interface Call {
  modulePath: string;
  exportName: string;
  argument: unknown;
}

process.once('message', (call: Call) => {
  void (async () => {
    try {
      const loaded = (await import(call.modulePath)) as Record<string, unknown>;
      const run = loaded[call.exportName];
      if (typeof run !== 'function') throw new Error(`${call.modulePath} does not export a function ${call.exportName}`);
      const result: unknown = await (run as (argument: unknown) => Promise<unknown>)(call.argument);
      process.send?.({ ok: true, result }, () => process.exit(0));
    } catch (error) {
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      process.send?.({ ok: false, message }, () => process.exit(1));
    }
  })();
});
