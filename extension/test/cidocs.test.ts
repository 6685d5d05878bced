// docs/ci/github-actions.yml checked by GitHub's own workflow parser (the one the Actions
// extension for VS Code uses): the schema of workflows, then the conversion to jobs and steps.
// Its commands are run by docs/ci/ci_test.go.

import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { convertWorkflowTemplate, NoOperationTraceWriter, parseWorkflow } from '@actions/workflow-parser';

const workflowPath = path.resolve(__dirname, '..', '..', '..', 'docs', 'ci', 'github-actions.yml');

test('docs/ci/github-actions.yml is a valid workflow: the shards, then the merge that uploads SARIF', async () => {
  const content = fs.readFileSync(workflowPath, 'utf8');
  const parsed = parseWorkflow({ name: 'github-actions.yml', content }, new NoOperationTraceWriter());
  assert.deepEqual(parsed.context.errors.getErrors().map((e) => e.message), [], 'the workflow schema');
  assert.ok(parsed.value);
  const wf = await convertWorkflowTemplate(parsed.context, parsed.value);
  assert.deepEqual(wf.errors ?? [], [], 'the conversion to jobs');
  const jobs = new Map(wf.jobs.map((j) => [j.id.value, j]));
  const explore = jobs.get('explore');
  const merge = jobs.get('merge');
  assert.ok(explore?.type === 'job' && merge?.type === 'job');
  assert.deepEqual(merge.needs?.map((n) => n.value), ['explore']);
  assert.equal(merge.if.expression, 'always()');
  const uses = (steps: typeof merge.steps): string[] => steps.flatMap((s) => ('uses' in s ? [s.uses.value.split('@')[0]] : []));
  const runs = (steps: typeof merge.steps): string[] => steps.flatMap((s) => ('run' in s ? [String(s.run)] : []));
  assert.ok(uses(explore.steps).includes('actions/upload-artifact'), 'each shard keeps its store');
  assert.ok(runs(explore.steps).some((r) => r.includes('interleave test -shard')), 'each shard explores its shard');
  assert.ok(uses(merge.steps).includes('actions/download-artifact'));
  assert.ok(runs(merge.steps).some((r) => r.includes('interleave merge -sarif')));
  assert.ok(uses(merge.steps).includes('github/codeql-action/upload-sarif'));
});
