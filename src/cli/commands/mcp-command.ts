import { Command, Option } from 'commander';
import { loadClientConfig } from '../../config/load-config.js';
import type { DocwrightApi } from '../../mcp/mcp-api.js';
import { MCP_SERVER_VERSION } from '../../mcp/mcp-version.js';
import { ApiClient } from '../api-client.js';

const HELP = `
Speaks the Model Context Protocol on stdin/stdout for an MCP client (Claude Desktop,
Cursor, an IDE): the client starts this command and talks to it; nothing else may use
stdout. Each tool is a call of the running server's HTTP API, like the other client
commands (docs/mcp.md).

Environment:
  DOCWRIGHT_URL      the server (default http://127.0.0.1:3000)
  DOCWRIGHT_API_KEY  an admin key of the project (docwright keys create --project ID)
  DOCWRIGHT_PROJECT  the default for --project`;

/** `docwright mcp`: an MCP server on stdio for one project, over the HTTP API. */
export function mcpCommand(): Command {
  return new Command('mcp')
    .description("Serve the project's agent jobs and analytics to an MCP client over stdio.")
    .addOption(new Option('--project <id>', 'project id (default: $DOCWRIGHT_PROJECT)'))
    .addHelpText('after', HELP)
    .action(async (options: { project?: string }, command: Command) => {
      const config = loadClientConfig();
      const projectId = options.project ?? config.projectId;
      if (projectId === undefined || projectId === '') {
        command.error('error: pass --project ID or set DOCWRIGHT_PROJECT (the project the API key belongs to)', { exitCode: 2, code: 'docwright.usage' });
      }
      const client = new ApiClient(config);
      // Checked now, not at the first tool call: a client configured without a key learns it at start.
      client.headers();
      const api: DocwrightApi = async (call) => {
        const response = await client.request<unknown>(call.path, {
          method: call.method,
          ...(call.query === undefined ? {} : { query: call.query }),
          ...(call.body === undefined ? {} : { body: call.body }),
        });
        return response.body;
      };
      // Loaded here, not at the top: every other command starts without the SDK.
      const [{ StdioServerTransport }, { createMcpServer }] = await Promise.all([
        import('@modelcontextprotocol/sdk/server/stdio.js'),
        import('../../mcp/mcp-server.js'),
      ]);
      const server = createMcpServer({ api, projectId, version: MCP_SERVER_VERSION });
      const transport = new StdioServerTransport();
      await server.connect(transport);
      // The client closing our stdin is the end of the session.
      await new Promise<void>((resolve) => process.stdin.once('end', resolve).once('close', resolve));
      await server.close();
    });
}
