import { useState } from 'preact/hooks';
import { jobsApi, rememberFirstPrompt } from '../api/jobs-api';
import type { ForgeKind, Job } from '../api/types';
import { useSubmission } from '../hooks/use-submission';
import { ErrorMessage } from './error-message';
import { Field } from './field';
import { NO_OPTIONS, PullRequestOptions, toControls } from './pull-request-options';

const MAX_PROMPT = 32_000;

export function NewJobForm({ projectId, forge, onCreated }: { projectId: string; forge: ForgeKind; onCreated: (job: Job) => void }) {
  const [prompt, setPrompt] = useState('');
  const [options, setOptions] = useState(NO_OPTIONS);
  const { busy, error, run } = useSubmission();
  const submit = async (event: Event) => {
    event.preventDefault();
    const text = prompt.trim();
    if (text === '') return;
    await run(async () => {
      const job = await jobsApi.create(projectId, text, toControls(options));
      rememberFirstPrompt(job.id, text);
      setPrompt('');
      setOptions(NO_OPTIONS);
      onCreated(job);
    });
  };
  return (
    <form onSubmit={submit}>
      <Field
        label="Instruction"
        hint={`What should change in the docs? ${prompt.length.toLocaleString('en')} / ${MAX_PROMPT.toLocaleString('en')} characters.`}
        error={error?.fieldErrors().prompt}
      >
        {(id, describedBy, invalid) => (
          <textarea
            id={id}
            rows={3}
            maxLength={MAX_PROMPT}
            placeholder="e.g. Add a troubleshooting section to the quickstart for proxy errors"
            value={prompt}
            aria-invalid={invalid}
            aria-describedby={describedBy}
            onInput={(event) => setPrompt(event.currentTarget.value)}
            onKeyDown={(event) => {
              // Ctrl/⌘+Enter sends, like most chat boxes.
              if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) void submit(event);
            }}
          />
        )}
      </Field>
      <PullRequestOptions forge={forge} state={options} onChange={setOptions} errors={error?.fieldErrors() ?? {}} />
      {error && <ErrorMessage error={error} title={error.status === 429 ? 'Rate limit reached' : 'Could not start the job'} />}
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled={busy || prompt.trim() === ''}>
          {busy ? 'Starting…' : 'Start job'}
        </button>
      </div>
    </form>
  );
}
