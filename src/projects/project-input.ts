import { existsSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import { validationFailed, type FieldError } from '../core/errors.js';
import { FORGE_KINDS, type ForgeKind } from './project.js';
import { validatePolicyGlobs } from '../agent/tools/index.js';

const policyGlobs = z
  .array(z.string().min(1).max(500))
  .max(200)
  .superRefine((globs, context) => {
    for (const message of validatePolicyGlobs(globs)) context.addIssue({ code: 'custom', message });
  });

export const writePolicySchema = z.object({ allow: policyGlobs.optional(), deny: policyGlobs.optional() }).strict();

export const projectSettingsSchema = z
  .object({
    model: z
      .string()
      .regex(/^(anthropic|openai|openai-compatible):\S+$/, 'must look like provider:model')
      .optional(),
    rateLimitPerHour: z.number().int().min(1).max(1_000_000).optional(),
    monthlyTokenBudget: z
      .number()
      .int()
      .min(1)
      .max(1e15)
      .optional()
      .describe("Tokens (input + output) the project's agent jobs may use per UTC month; a turn finding none left fails with budget_exceeded."),
    allowedOrigins: z.array(z.url()).max(100).optional(),
    siteHosts: z
      .array(
        z
          .string()
          .max(255)
          .regex(/^[A-Za-z0-9.-]+(:\d{1,5})?$/, 'must be a host name, optionally with :port (docs.example.com)'),
      )
      .max(100)
      .optional()
      .describe(
        "The docs site's hosts: a Web Bot Auth signature must be made for one of them (its @authority) to verify a hit. Default: the hosts of allowedOrigins.",
      ),
    rotateVisitorIdsDaily: z.boolean().optional(),
    writePolicy: writePolicySchema.optional(),
  })
  .strict();

/** git check-ref-format's rules, tightened: no leading dash so a ref is never read as an option. */
export const gitRefSchema = z
  .string()
  .min(1)
  .max(200)
  .refine(
    (ref) =>
      !ref.startsWith('-') &&
      !ref.startsWith('/') &&
      !ref.endsWith('/') &&
      !ref.endsWith('.') &&
      !ref.endsWith('.lock') &&
      !ref.includes('..') &&
      !ref.includes('@{') &&
      !ref.includes('//') &&
      !/[\x00-\x20\x7f~^:?*[\\]/.test(ref),
    'is not a valid git branch or tag name',
  );

export interface NewProjectInput {
  name: string;
  repository: string;
  ref?: string;
  forge?: ForgeKind;
  settings?: unknown;
}

export interface NormalisedProjectInput {
  name: string;
  repository: string;
  ref: string;
  forge: ForgeKind;
  settings: z.infer<typeof projectSettingsSchema>;
}

const GITHUB_URL = /^https:\/\/github\.com\/[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}?(?:\.git)?\/?$/;
const GITLAB_URL = /^https:\/\/[^/\s]+\/[^\s]+$/;

function inferForge(repository: string): ForgeKind {
  if (/^https:\/\/github\.com\//i.test(repository)) return 'github';
  if (/^https?:\/\//i.test(repository)) return 'gitlab';
  return 'local';
}

function isGitRepository(path: string): boolean {
  if (!existsSync(path) || !statSync(path).isDirectory()) return false;
  return existsSync(join(path, '.git')) || (existsSync(join(path, 'HEAD')) && existsSync(join(path, 'objects')));
}

/**
 * Validates a new project and fills defaults: the forge follows from the repository
 * (a path means the local forge), a local repository path becomes absolute.
 */
export function normaliseProjectInput(input: NewProjectInput, cwd = process.cwd()): NormalisedProjectInput {
  const errors: FieldError[] = [];
  const name = input.name.trim();
  if (name.length < 1 || name.length > 200) errors.push({ path: 'name', message: 'must be 1 to 200 characters' });
  let repository = input.repository.trim();
  const forge = input.forge ?? inferForge(repository);
  if (!FORGE_KINDS.includes(forge)) errors.push({ path: 'forge', message: `must be one of ${FORGE_KINDS.join(', ')}` });
  if (forge === 'local') {
    repository = isAbsolute(repository) ? repository : resolve(cwd, repository);
    if (!isGitRepository(repository)) errors.push({ path: 'repository', message: `${repository} is not a local git repository` });
  } else if (forge === 'github') {
    if (!GITHUB_URL.test(repository)) errors.push({ path: 'repository', message: 'must look like https://github.com/OWNER/NAME' });
    repository = repository.replace(/\/$/, '').replace(/\.git$/, '');
  } else {
    if (!GITLAB_URL.test(repository)) errors.push({ path: 'repository', message: 'must look like https://gitlab.com/GROUP/NAME' });
    repository = repository.replace(/\/$/, '').replace(/\.git$/, '');
  }
  const ref = input.ref ?? 'main';
  const refResult = gitRefSchema.safeParse(ref);
  if (!refResult.success) errors.push({ path: 'ref', message: refResult.error.issues[0]?.message ?? 'invalid' });
  const settingsResult = projectSettingsSchema.safeParse(input.settings ?? {});
  if (!settingsResult.success) {
    for (const issue of settingsResult.error.issues) errors.push({ path: ['settings', ...issue.path].join('.'), message: issue.message });
  }
  if (errors.length > 0) throw validationFailed('The project is not valid.', errors);
  return { name, repository, ref, forge, settings: settingsResult.data ?? {} };
}
