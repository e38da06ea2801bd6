import { Field } from './field';
import type { ForgeKind, JobControls } from '../api/types';

/** What the form holds: text as typed; turned into the API's controls by `toControls`. */
export interface PullRequestOptionsState {
  ref: string;
  branchName: string;
  draft: boolean;
  reviewers: string;
  labels: string;
  autoMerge: boolean;
  mergeMethod: '' | 'merge' | 'squash' | 'rebase';
}

export const NO_OPTIONS: PullRequestOptionsState = { ref: '', branchName: '', draft: false, reviewers: '', labels: '', autoMerge: false, mergeMethod: '' };

/** Comma- or space-separated names, blanks dropped. */
const list = (text: string): string[] =>
  text
    .split(/[\s,]+/)
    .map((item) => item.trim())
    .filter((item) => item !== '');

/**
 * The create body's optional controls (docs/agent-jobs.md). Only what was set is sent, so
 * the project's defaults apply otherwise; the server validates every field and the form
 * shows its answer beside the field.
 */
export function toControls(state: PullRequestOptionsState): JobControls {
  const controls: JobControls = {};
  if (state.ref.trim() !== '') controls.ref = state.ref.trim();
  if (state.branchName.trim() !== '') controls.branchName = state.branchName.trim();
  if (state.draft) controls.draft = true;
  if (list(state.reviewers).length > 0) controls.reviewers = list(state.reviewers);
  // Labels may contain spaces ("needs review"), so only commas separate them.
  const labels = state.labels
    .split(',')
    .map((label) => label.trim())
    .filter((label) => label !== '');
  if (labels.length > 0) controls.labels = labels;
  if (state.autoMerge) controls.autoMerge = true;
  if (state.autoMerge && state.mergeMethod !== '') controls.mergeMethod = state.mergeMethod;
  return controls;
}

/** The first error the server gave for `name` or one of its items (`reviewers/1`). */
export function errorFor(errors: Record<string, string>, name: string): string | undefined {
  for (const [path, message] of Object.entries(errors)) {
    if (path === name || new RegExp(`^${name}[./[]`).test(path)) return message;
  }
  return undefined;
}

type TextName = 'ref' | 'branchName' | 'reviewers' | 'labels';

interface TextOptionProps {
  name: TextName;
  label: string;
  hint: string;
  /** Names and branches are not words; labels may be. */
  spellcheck?: boolean;
  state: PullRequestOptionsState;
  errors: Record<string, string>;
  onText: (name: TextName, value: string) => void;
}

function TextOption({ name, label, hint, spellcheck = false, state, errors, onText }: TextOptionProps) {
  return (
    <Field label={label} hint={hint} error={errorFor(errors, name)}>
      {(id, describedBy, invalid) => (
        <input
          id={id}
          value={state[name]}
          spellcheck={spellcheck}
          aria-invalid={invalid}
          aria-describedby={describedBy}
          onInput={(event) => onText(name, event.currentTarget.value)}
        />
      )}
    </Field>
  );
}

interface Props {
  forge: ForgeKind;
  state: PullRequestOptionsState;
  onChange: (state: PullRequestOptionsState) => void;
  errors: Record<string, string>;
}

/**
 * The pull request controls of a new job, folded away: most jobs need none. Draft,
 * reviewers, labels and auto-merge are GitHub and GitLab features; the local forge has
 * none of them, so they are not offered there (the server would answer 400).
 */
export function PullRequestOptions({ forge, state, onChange, errors }: Props) {
  const set = <Key extends keyof PullRequestOptionsState>(key: Key, value: PullRequestOptionsState[Key]) => onChange({ ...state, [key]: value });
  const remote = forge !== 'local';
  const changed = JSON.stringify(state) !== JSON.stringify(NO_OPTIONS);
  const hasError = Object.keys(errors).some((path) => path !== 'prompt');
  const autoMergeError = errorFor(errors, 'autoMerge');
  const field = { state, errors, onText: (name: TextName, value: string) => set(name, value) };
  return (
    <details class="steps pull-request-options" open={changed || hasError}>
      <summary>Pull request options</summary>
      <div class="field-row options-grid">
        <TextOption name="ref" label="Base branch" hint="Start from and open the pull request against this branch; default the project's." {...field} />
        <TextOption name="branchName" label="Branch name" hint="Pushed as docwright/NAME; default docwright/JOB-ID." {...field} />
        {remote && (
          <>
            <TextOption
              name="reviewers"
              label="Reviewers"
              hint={forge === 'github' ? 'GitHub logins or org/team, separated by commas.' : 'GitLab usernames, separated by commas.'}
              {...field}
            />
            <TextOption name="labels" label="Labels" hint="Separated by commas; created if missing." spellcheck {...field} />
            <div class="check-field">
              <input id="job-draft" type="checkbox" checked={state.draft} onChange={(event) => set('draft', event.currentTarget.checked)} />
              <label for="job-draft">Open as a draft</label>
            </div>
            <div class="check-field">
              <input
                id="job-auto-merge"
                type="checkbox"
                checked={state.autoMerge}
                aria-describedby="job-auto-merge-hint"
                aria-invalid={autoMergeError !== undefined}
                onChange={(event) => set('autoMerge', event.currentTarget.checked)}
              />
              <label for="job-auto-merge">Merge automatically once the forge's checks pass</label>
              <p class={autoMergeError === undefined ? 'field-hint' : 'field-error'} id="job-auto-merge-hint">
                {autoMergeError ?? 'Not with a draft. A refusal by the forge is shown on the job as a warning.'}
              </p>
            </div>
            {state.autoMerge && (
              <Field label="Merge method" error={errorFor(errors, 'mergeMethod')}>
                {(id, describedBy) => (
                  <select
                    id={id}
                    value={state.mergeMethod}
                    aria-describedby={describedBy}
                    onChange={(event) => set('mergeMethod', event.currentTarget.value as PullRequestOptionsState['mergeMethod'])}
                  >
                    <option value="">The forge's default</option>
                    <option value="merge">Merge commit</option>
                    <option value="squash">Squash</option>
                    {forge === 'github' && <option value="rebase">Rebase</option>}
                  </select>
                )}
              </Field>
            )}
          </>
        )}
      </div>
    </details>
  );
}
