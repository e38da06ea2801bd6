/**
 * The built-in write policy: what the agent may change in a docs repository by default,
 * and what it may never change. Listed in docs/agent-jobs.md; keep the two in step.
 *
 * The danger is not a bad paragraph (a reviewer sees it) but a file that runs: a CI
 * pipeline or a package script is executed by CI on the pushed branch before anyone
 * reviews it, and a planted instruction in a docs page can ask the model for one.
 */

/** Documentation content. A project's `writePolicy.allow` adds to this list. */
export const DEFAULT_ALLOW: readonly string[] = [
  '**/*.{md,mdx,markdown}',
  // Images and other static assets pages embed or link to.
  '**/*.{png,jpg,jpeg,gif,webp,avif,svg,ico,bmp,tif,tiff}',
  '**/*.{mp4,webm,mov,mp3,wav,ogg,pdf,txt,csv,woff,woff2,ttf,otf}',
  // Site configuration; the files it pulls in with "$ref" and the OpenAPI specs its
  // navigation names are added per repository (see docs-config-references.ts).
  '**/{docs,mint}.json',
];

export type DenyCategory = 'ci' | 'build' | 'manifest' | 'executable';

/** Always refused, whatever a project allows. Matched case-insensitively. */
export const BUILT_IN_DENY: ReadonlyArray<{ category: DenyCategory; patterns: readonly string[] }> = [
  {
    category: 'ci',
    patterns: [
      '**/.github/**',
      '**/.gitlab-ci.yml',
      '**/.gitlab/**',
      '**/.circleci/**',
      '**/.travis.yml',
      '**/azure-pipelines*.{yml,yaml}',
      '**/.azure-pipelines/**',
      '**/.azuredevops/**',
      '**/bitbucket-pipelines.yml',
      '**/jenkinsfile*',
      '**/.buildkite/**',
      '**/.drone.yml',
      '**/.woodpecker/**',
      '**/.woodpecker.{yml,yaml}',
      '**/{.,}appveyor.yml',
      '**/cloudbuild.{yml,yaml,json}',
      '**/buildspec.{yml,yaml}',
      '**/.semaphore/**',
      '**/codefresh.yml',
      '**/.forgejo/**',
      '**/.gitea/**',
      '**/bitrise.yml',
      '**/.cirrus.yml',
      '**/.pre-commit-config.yaml',
      '**/.husky/**',
      '**/lefthook*.{yml,yaml}',
      '**/.devcontainer/**',
    ],
  },
  {
    category: 'build',
    patterns: [
      '**/dockerfile*',
      '**/*.dockerfile',
      '**/{docker-,}compose*.{yml,yaml}',
      '**/{makefile,gnumakefile,*.mk}',
      '**/{netlify.toml,vercel.json,now.json,firebase.json,wrangler.toml,fly.toml,render.yaml,app.yaml,procfile}',
      '**/{taskfile.yml,taskfile.yaml,justfile,rakefile,cmakelists.txt,build.gradle,build.gradle.kts,settings.gradle,pom.xml}',
      '**/*.config.{js,cjs,mjs,ts,cts,mts}',
      '**/{mkdocs.yml,mkdocs.yaml,_config.yml,docusaurus.config.*,conf.py}',
    ],
  },
  {
    category: 'manifest',
    patterns: [
      '**/{package.json,package-lock.json,npm-shrinkwrap.json,yarn.lock,.yarnrc.yml,pnpm-lock.yaml,pnpm-workspace.yaml,bun.lock,bun.lockb}',
      '**/{deno.json,deno.jsonc,deno.lock,tsconfig*.json,jsconfig.json}',
      '**/{requirements*.txt,pyproject.toml,pipfile,pipfile.lock,poetry.lock,uv.lock,setup.py,setup.cfg}',
      '**/{cargo.toml,cargo.lock,go.mod,go.sum,composer.json,composer.lock,gemfile,gemfile.lock,*.gemspec}',
      '**/{mix.exs,mix.lock,pubspec.yaml,pubspec.lock,podfile,podfile.lock,package.swift,*.csproj,packages.config}',
    ],
  },
  {
    category: 'executable',
    patterns: ['**/*.{sh,bash,zsh,fish,ps1,psm1,bat,cmd,exe,dll,so,dylib,jar,wasm,com,msi,app,bin}'],
  },
];

/** Dot files the agent may write (all others, and everything under a dot directory, are refused). */
export const ALLOWED_DOTFILES: readonly string[] = ['**/.mintignore', '**/.gitkeep'];

export const DENY_REASONS: Readonly<Record<DenyCategory | 'dotfile' | 'project' | 'not-docs' | 'mode', string>> = {
  ci: 'is a CI or automation configuration file',
  build: 'is a build, deployment or tool configuration file',
  manifest: 'is a package manifest, lockfile or compiler configuration',
  executable: 'is a script or executable file',
  dotfile: 'is a dot file or inside a dot directory',
  project: "is refused by this project's write policy",
  'not-docs':
    "is not documentation content (Markdown/MDX pages, images and static assets, docs.json/mint.json and the files it references) and not in this project's allow-list",
  mode: 'has an executable, symbolic-link or submodule file mode',
};
