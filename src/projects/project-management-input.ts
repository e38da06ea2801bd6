import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { validationFailed } from '../core/errors.js';
import type { ForgeCredentials } from '../git/forges/forge.js';
import { FORGE_KINDS, type ForgeKind, type ProjectSettings } from './project.js';
import { gitRefSchema, projectSettingsSchema } from './project-input.js';

/** A forge token as the dashboard sends it; the same rule as `--token-file` (forge-credentials-input.ts). */
export const forgeTokenSchema = z
  .string()
  .min(8)
  .max(10_000)
  .regex(/^\S+$/, 'must have no spaces')
  .describe('Write-only: stored encrypted, never returned (hasForgeCredentials tells whether one is set).');

const shape = projectSettingsSchema.shape;
/** Every setting optional; null removes it (the project then uses the default). */
export const settingsPatchSchema = z
  .object({
    model: shape.model.unwrap().nullable().optional(),
    rateLimitPerHour: shape.rateLimitPerHour.unwrap().nullable().optional(),
    monthlyTokenBudget: shape.monthlyTokenBudget.unwrap().nullable().optional(),
    allowedOrigins: shape.allowedOrigins.unwrap().nullable().optional(),
    siteHosts: shape.siteHosts.unwrap().nullable().optional(),
    rotateVisitorIdsDaily: shape.rotateVisitorIdsDaily.unwrap().nullable().optional(),
    writePolicy: shape.writePolicy.unwrap().nullable().optional(),
  })
  .strict();

export const newProjectBodySchema = z
  .object({
    name: z.string().max(200),
    repository: z
      .string()
      .min(1)
      .max(2_000)
      .describe('An absolute path of a git repository on the server (local forge), https://github.com/OWNER/NAME, or a GitLab project URL.'),
    ref: z.string().max(200).optional(),
    forge: z.enum(FORGE_KINDS as [ForgeKind, ...ForgeKind[]]).optional(),
    forgeToken: forgeTokenSchema.optional(),
    settings: projectSettingsSchema.optional(),
  })
  .strict();

export const projectPatchBodySchema = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    ref: gitRefSchema.optional(),
    forgeToken: forgeTokenSchema.nullable().optional().describe('A new token; null removes the stored credentials.'),
    settings: settingsPatchSchema.optional(),
  })
  .strict();

export const deleteProjectBodySchema = z.object({
  confirmName: z.string().max(200).describe("The project's name, exactly: a guard against deleting the wrong project."),
});

/**
 * A local repository given over HTTP must be an absolute path: resolving a relative one
 * against the server's working directory would surprise whoever typed it.
 */
export function requireAbsoluteLocalPath(repository: string, forge: ForgeKind | undefined): void {
  const local = forge === 'local' || (forge === undefined && !/^https?:\/\//i.test(repository.trim()));
  if (local && !isAbsolute(repository.trim()))
    throw validationFailed('The project is not valid.', [{ path: 'repository', message: 'must be an absolute path on the server' }]);
}

/** The local forge pushes to a path on this machine: a token would be stored for nothing. */
export function forgeTokenCredentials(forge: ForgeKind, token: string | null | undefined): ForgeCredentials | null | undefined {
  if (token === undefined || token === null) return token;
  if (forge === 'local') throw validationFailed('The project is not valid.', [{ path: 'forgeToken', message: 'the local forge needs no token' }]);
  return { token };
}

/** The settings after a patch: given keys replace, null keys are removed, others stay. */
export function patchSettings(current: ProjectSettings, patch: z.infer<typeof settingsPatchSchema>): ProjectSettings {
  const next: Record<string, unknown> = { ...current };
  // A key may be present and undefined (a caller's `{ model: options.model }`), whatever Object.entries' type says.
  for (const [key, value] of Object.entries(patch) as Array<[string, unknown]>) {
    if (value !== undefined) next[key] = value;
  }
  return projectSettingsSchema.parse(Object.fromEntries(Object.entries(next).filter(([, value]) => value !== null)));
}
