import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { nodeSchedulePath } from '../src/schedules/node';
import { testVerdictOf, verdictOf } from '../src/schedules/verify';

const path = '/m/.interleave/schedules/TestAdd-fail-20261202T014459.308.json';

test('Verify fix reads the verdict on its schedule from interleave verify -json', () => {
  const fixed = JSON.stringify({ Test: 'TestAdd', Saved: [{ Schedule: path, Outcome: 'fixed', Detail: 'replayed clean: the fail no longer happens under it' }], Strategy: 'portfolio', Schedules: 20, Verdict: 'fixed' });
  assert.deepEqual(verdictOf('noise\n' + fixed + '\n', path), { verdict: 'fixed', detail: 'replayed clean: the fail no longer happens under it; 20 fresh schedules clean (portfolio)' });
  const fails = JSON.stringify({ Test: 'TestAdd', Saved: [{ Schedule: path, Outcome: 'fails', Detail: 'fail at x_test.go:20' }], Bug: { Kind: 'fail', Position: 'x_test.go:20' }, Verdict: 'still fails' });
  assert.deepEqual(verdictOf(fails, path), { verdict: 'still fails', detail: 'fail at x_test.go:20' });
  const clean = JSON.stringify({ Test: 'TestAdd', Saved: [{ Schedule: path, Outcome: 'fixed', Detail: 'replayed clean' }], Bug: { Kind: 'deadlock', Position: 'x.go:3' }, Schedules: 9 });
  assert.equal(verdictOf(clean, path)?.verdict, 'still fails');
  const changed = JSON.stringify({ Saved: [{ Schedule: path, Outcome: 'diverged', Detail: 'the source changed since the schedule was saved: at step 4 G2 now runs lock at x.go:9:3' }], Schedules: 10000, Strategy: 'pos' });
  assert.equal(verdictOf(changed, path)?.verdict, 'changed');
  assert.equal(verdictOf(fixed, '/other.json'), undefined);
  assert.equal(verdictOf('{half', path), undefined);
});

test('Verify fix on a test item reads its test verdict, with a line per saved schedule', () => {
  const out = JSON.stringify({ Package: 'example.com/m', Test: 'TestAdd', Saved: [{ Schedule: path, Outcome: 'fixed', Detail: 'replayed clean' }], Strategy: 'pos', Schedules: 100, Verdict: 'fixed' });
  assert.deepEqual(testVerdictOf(out, 'TestAdd'), { verdict: 'fixed', detail: `${path}: fixed: replayed clean\nexplored: 100 fresh schedules clean (pos)` });
  const fails = JSON.stringify({ Test: 'TestAdd', Saved: [{ Schedule: path, Outcome: 'fails', Detail: 'fail at x_test.go:20' }], Bug: { Kind: 'fail', Position: 'x_test.go:20' }, Verdict: 'still fails' });
  assert.equal(testVerdictOf(fails, 'TestAdd')?.verdict, 'still fails');
  assert.equal(testVerdictOf(out, 'TestOther'), undefined);
});

test('Verify fix on a schedule verify did not replay: as found takes its minimized one\'s verdict; after a failing one, still fails', () => {
  const found = path.replace(/\.json$/, '.found.json');
  const fixed = JSON.stringify({ Test: 'TestAdd', Saved: [{ Schedule: path, Outcome: 'fixed', Detail: 'replayed clean' }], Strategy: 'pos', Schedules: 20, Verdict: 'fixed' });
  assert.deepEqual(verdictOf(fixed, found, 'TestAdd'), { verdict: 'fixed', detail: 'as its minimized schedule: replayed clean; 20 fresh schedules clean (pos)' });
  // interleave verify stops at the first saved schedule that still fails: a later one is not
  // in its output, and the bug is still there.
  const later = '/m/.interleave/schedules/TestAdd-fail-20261202T020000.000.json';
  const fails = JSON.stringify({ Test: 'TestAdd', Saved: [{ Schedule: path, Outcome: 'fails', Detail: 'fail at x_test.go:20' }], Bug: { Kind: 'fail', Position: 'x_test.go:20' }, Schedules: 10000, Verdict: 'still fails' });
  assert.deepEqual(verdictOf(fails, later, 'TestAdd'), { verdict: 'still fails', detail: 'not replayed: TestAdd-fail-20261202T014459.308.json still fails first (fail at x_test.go:20)' });
  assert.equal(verdictOf(fails, later, 'TestOther'), undefined);
  assert.equal(verdictOf(fails, later), undefined);
  // A fixed test names every saved schedule it replayed: one it does not name has no verdict.
  assert.equal(verdictOf(fixed, later, 'TestAdd'), undefined);
});

test('a Schedules view context menu command finds its schedule in the tree element it is given', () => {
  assert.equal(nodeSchedulePath({ kind: 'schedule', schedule: { path, test: 'TestAdd' } }), path);
  assert.equal(nodeSchedulePath({ kind: 'module', root: '/m', schedules: [] }), undefined);
  assert.equal(nodeSchedulePath(undefined), undefined);
  assert.equal(nodeSchedulePath('x'), undefined);
});
