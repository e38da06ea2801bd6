/** What the MCP server reports as its version in `initialize` (the CLI's --version). */
export const MCP_SERVER_VERSION = '0.1.0';
