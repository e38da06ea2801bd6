import { Command } from 'commander';

/**
 * `docwright openapi`: prints the OpenAPI document the server serves at /openapi.json,
 * without a running server (for client generators and CI). Lazy import: the app and its
 * features load only for this command.
 */
export function openApiCommand(): Command {
  return new Command('openapi')
    .description('Print the OpenAPI 3.1 document of the HTTP API (what GET /openapi.json serves), without a server.')
    .option('--server <url>', "the default of the document's server URL", 'http://127.0.0.1:3000')
    .action(async (options: { server: string }) => {
      const { exportOpenApiDocument } = await import('../../server/openapi-export.js');
      process.stdout.write(`${JSON.stringify(await exportOpenApiDocument(options.server), null, 2)}\n`);
    });
}
