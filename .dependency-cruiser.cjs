// The layer rules of docs/architecture.md ("Layers"), checked by `npm run lint:layers` (part of
// `npm run lint`, which `npm test` runs). Data flows route → service → repository/queue →
// worker → agent → git/forge; a lower layer never imports a higher one. Each rule says why.
// Type-only imports count: a lower layer that needs a higher layer's type is still coupled to it.

/** Where a process or a worker thread starts: bin/docwright.js runs the CLI; the pools load the bootstraps by URL. */
const ENTRY_POINTS = ['^src/cli/main\\.ts$', '-bootstrap\\.mjs$'];
/** The features: each owns its routes, service, repository and CLI-independent logic. */
const FEATURES = '(accounts|keys|projects|jobs|pull-requests|analytics|dashboard|mcp|webhooks)';
/** The layers below every feature, from the bottom: core, config, db, then the infrastructure. */
const INFRASTRUCTURE = '(core|config|db|queue|rate-limit|git|docs-site|agent)';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'A cycle makes two modules one: neither can be understood, tested or loaded without the other.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-unreachable-modules',
      comment:
        'No orphans, and more: every module of src/ is reached from an entry point (the CLI, or a worker-thread bootstrap loaded by URL); one that is not is dead code, or kept alive by tests alone.',
      severity: 'error',
      from: { path: ENTRY_POINTS },
      to: { path: '^src/', pathNot: [...ENTRY_POINTS, '\\.d\\.ts$'], reachable: false },
    },
    {
      name: 'core-imports-nothing-of-ours',
      comment: 'core/ (errors, clock, ids, SecretBox, the Log interface) sits under everything, so it may depend on nothing else in src/.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^src/', pathNot: '^src/core/' },
    },
    {
      name: 'config-imports-only-core',
      comment: 'config/ is the only reader of process.env; every layer may read the parsed Config, so it stands on core/ alone.',
      severity: 'error',
      from: { path: '^src/config/' },
      to: { path: '^src/', pathNot: '^src/(core|config)/' },
    },
    {
      name: 'db-imports-only-core-and-config',
      comment: 'db/ (the Database interface, adapters, migrator, transactions) knows no feature: features bring their queries to it.',
      severity: 'error',
      from: { path: '^src/db/' },
      to: { path: '^src/', pathNot: '^src/(core|config|db)/' },
    },
    {
      name: 'queue-and-rate-limit-stand-on-db',
      comment:
        "queue/ and rate-limit/ are infrastructure under the job service and the routes: core, config and db only (no app/: a logger comes in as core/log.ts's Log).",
      severity: 'error',
      from: { path: '^src/(queue|rate-limit)/' },
      to: { path: '^src/', pathNot: '^src/(core|config|db|queue|rate-limit)/' },
    },
    {
      name: 'git-is-data-and-remote-apis',
      comment:
        'git/ (the git CLI, workspaces, forges) is the bottom of the data flow: core, config and db only; its HTTP routes live with their feature (pull-requests/).',
      severity: 'error',
      from: { path: '^src/git/' },
      to: { path: '^src/', pathNot: '^src/(core|config|db|git)/' },
    },
    {
      name: 'docs-site-imports-only-core',
      comment: "The docs check sits below the agent's tools and the CLI, which hand it files and worker threads.",
      severity: 'error',
      from: { path: '^src/docs-site/' },
      to: { path: '^src/', pathNot: '^src/(core|docs-site)/' },
    },
    {
      name: 'docs-site-does-no-io',
      comment: 'The docs check has no I/O of its own (files and worker threads are passed in), so the same code checks a working tree or a commit.',
      severity: 'error',
      from: { path: '^src/docs-site/' },
      to: { dependencyTypes: ['core'], path: '^(node:)?(fs|fs/promises|child_process|worker_threads|net|http|https)$' },
    },
    {
      name: 'agent-stands-on-docs-site',
      comment: 'The agent (model loop and its sandboxed tools) never touches git, the forge or the database: the orchestrator (jobs/) does.',
      severity: 'error',
      from: { path: '^src/agent/' },
      to: { path: '^src/', pathNot: '^src/(core|config|docs-site|agent)/' },
    },
    {
      name: 'no-http-below-the-features',
      comment: 'Only features, app/, server/ and dashboard/ speak HTTP; infrastructure is called by them and knows nothing of requests.',
      severity: 'error',
      from: { path: `^src/${INFRASTRUCTURE}/` },
      to: { path: '(^|/)node_modules/(fastify|@fastify/[^/]+|fastify-type-provider-zod|light-my-request)/' },
    },
    {
      name: 'infrastructure-never-imports-a-feature',
      comment: 'Data flows down: a lower layer that imported a feature (or the app, server or CLI) would close a loop through it.',
      severity: 'error',
      from: { path: `^src/${INFRASTRUCTURE}/` },
      to: { path: `^src/(${FEATURES.slice(1, -1)}|app|server|cli)/` },
    },
    {
      name: 'no-feature-imports-a-process-role',
      comment: 'server/ (process roles, feature registration) and cli/ (commands) are the top: nothing below imports them.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(server|cli)/' },
      to: { path: '^src/(server|cli)/' },
    },
    {
      name: 'server-does-not-import-the-cli',
      comment: 'The CLI starts the server roles, never the other way round.',
      severity: 'error',
      from: { path: '^src/server/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'no-feature-imports-another-features-routes',
      comment:
        'A route file belongs to its feature; what several features share (security schemes, problem responses, path parameters) lives in app/. Only server/features.ts registers them all.',
      severity: 'error',
      from: { path: '^src/([^/]+)/', pathNot: '^src/server/' },
      to: { path: '^src/([^/]+)/.*-routes?\\.ts$', pathNot: '^src/$1/' },
    },
    {
      name: 'src-never-imports-tests-or-tools',
      comment: 'test/, bench/ and scripts/ depend on src/, never the reverse.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench|scripts)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.json'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
