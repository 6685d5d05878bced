import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { age, modulePath, notExplored, oneRowPerBug, packageDir, parseEvents, parsePosition, parseRunSummary, parseSchedule, passSummary, timeFromName } from '../src/store/store';
import { discoverTests, runPattern } from '../src/testing/discover';
import { exploreOptions } from '../src/debug/options';

const schedule = JSON.stringify({
  format: 'interleave-schedule', version: 1,
  test: { module: 'example.com/bank', package: 'example.com/bank', name: 'TestTransfer', build: 'src-1' },
  strategy: { name: 'pct' }, result: { steps: 3, goroutines: 2, preemptions: 1 },
  bug: { kind: 'deadlock', message: 'all goroutines are blocked', step: 3 },
  steps: [{ step: 1, g: 0, op: 'go', pos: 'bank_test.go:10:2' }, { choice: 1, n: 2, g: 1, op: 'select' }, { step: 2, g: 1, op: 'lock', pos: 'bank.go:4:2' }, { step: 3, g: 0, op: 'lock', pos: 'bank.go:9:2' }],
});

test('schedule files are read for the views; other documents are not', () => {
  const s = parseSchedule('/m/.interleave/schedules/TestTransfer-deadlock-20261123T230127.759.json', schedule);
  assert.ok(s);
  assert.equal(s.test, 'TestTransfer');
  assert.equal(s.kind, 'deadlock');
  assert.equal(s.preemptions, 1);
  assert.equal(s.time, Date.UTC(2026, 10, 23, 23, 1, 27, 759));
  assert.equal(s.found, false);
  assert.equal(parseSchedule('x.json', '{"format":"interleave-findings"}'), undefined);
  assert.equal(parseSchedule('x.json', '{half'), undefined);
  assert.ok(Number.isNaN(timeFromName('other.json')));
  // Two schedules saved in the same millisecond: the second is <stem>-2.json (store.CreateUnique).
  const ms = Date.UTC(2026, 10, 23, 23, 1, 27, 759);
  assert.equal(timeFromName('TestTransfer-deadlock-20261123T230127.759-2.json'), ms);
  assert.equal(timeFromName('TestTransfer-deadlock-20261123T230127.759-2.found.json'), ms);
  assert.equal(age(0, 3 * 60_000), '3 minutes ago');
  assert.equal(age(0, 1000), 'just now');
});

test('interleave test -json is read event by event across chunks', () => {
  const a = parseEvents('', '{"Action":"run","Test":"TestA"}\n{"Action":"fa');
  assert.equal(a.events.length, 1);
  const b = parseEvents(a.rest, 'il","Test":"TestA","Bug":{"Kind":"deadlock","Message":"m","Position":"a.go:3:1","Preemptions":0}}\nnot json\n');
  assert.equal(b.events.length, 1);
  assert.equal(b.events[0].Bug?.Kind, 'deadlock');
  assert.equal(b.rest, '');
  assert.deepEqual(parsePosition('bank.go:12:3'), { file: 'bank.go', line: 12, column: 3 });
  assert.deepEqual(parsePosition('dir/bank.go:12'), { file: 'dir/bank.go', line: 12, column: 1 });
  assert.equal(parsePosition('nowhere'), undefined);
  assert.equal(passSummary({ Action: 'pass', Schedules: 10000, Interleavings: 37, Strategy: 'portfolio' }), 'no bug in 10,000 schedules (37 distinct interleavings, portfolio)');
  // A test cut at the step bound or abandoned is shown skipped, with why.
  assert.equal(notExplored('cut', '3 of 3 schedule(s) (100%) cut'), 'Cut at the step bound: 3 of 3 schedule(s) (100%) cut');
  assert.equal(notExplored('abandoned', 'blocked in example.com/sem'), 'Abandoned, blocked outside the engine: blocked in example.com/sem');
  assert.equal(notExplored('pass', undefined), undefined);
  assert.equal(notExplored(undefined, undefined), undefined);
});

test('tests and literal subtests are found by text, in files that do not compile', () => {
  const src = [
    'package bank', '', 'import "testing"', '',
    'func TestTransfer(t *testing.T) {', '\tt.Run("two accounts", func(t *testing.T) {})', '\tundefined()', '}', '',
    'func helper(t *testing.T) {}', '',
    'func TestX(tt *testing.T) { tt.Run(name, nil) }',
    'func Testlower(t *testing.T) {}',
  ].join('\n');
  const tests = discoverTests(src);
  assert.deepEqual(tests.map((t) => t.name), ['TestTransfer', 'TestX']);
  assert.deepEqual(tests[0].subtests.map((s) => [s.name, s.line]), [['two_accounts', 5]]);
  assert.equal(tests[0].line, 4);
  assert.equal(runPattern('TestA'), '^TestA$');
  assert.equal(runPattern('TestA', 'x.y'), '^TestA$/^x\\.y$');
});

test('a run summary written by interleave test in a terminal is read for the Testing view', () => {
  const text = JSON.stringify({
    Version: 1, Time: '2026-11-24T16:40:00Z', Origin: 'vscode:s1', Packages: ['./...'],
    Tests: [
      { Package: 'example.com/m/bank', Test: 'TestTransfer', Result: { Event: 'result', Schedules: 2, Bug: { Kind: 'deadlock', Message: 'all goroutines are blocked', Position: 'bank/bank.go:4:2', Preemptions: 1 } } },
      { Package: 'example.com/m', Test: 'TestOK', Result: { Event: 'result', Schedules: 100, Interleavings: 7 } },
      { Package: 'example.com/m', Test: 'TestBroken', Err: 'the test binary ended without a result' },
    ],
  });
  const s = parseRunSummary(text);
  assert.ok(s);
  assert.equal(s.outcomes.length, 3);
  assert.equal(s.outcomes[0].Result?.Bug?.Kind, 'deadlock');
  assert.equal(s.origin, 'vscode:s1');
  assert.equal(parseRunSummary('{"Version":1,"Tests":[]}')?.origin, '');
  assert.equal(parseRunSummary('{"Version":1,"Tests":'), undefined);
  assert.equal(parseRunSummary('{"format":"interleave-schedule"}'), undefined);
  assert.equal(modulePath('// comment\nmodule example.com/m\n\ngo 1.22\n'), 'example.com/m');
  assert.equal(packageDir('/w/m', 'example.com/m', 'example.com/m/bank'), '/w/m/bank');
  assert.equal(packageDir('/w/m', 'example.com/m', 'example.com/m'), '/w/m');
  assert.equal(packageDir('/w/m', 'example.com/m', 'example.com/mx'), undefined);
});

test('an action\'s options become launch attributes; anything else is left out', () => {
  assert.deepEqual(exploreOptions({ races: 'fail', points: 'all', schedules: 500, strategy: 'pct' }), { races: 'fail', points: 'all', schedules: 500, strategy: 'pct' });
  assert.deepEqual(exploreOptions({ program: '/elsewhere', races: 1, schedules: -1, buildFlags: ['-toolexec=x'] }), {});
  assert.deepEqual(exploreOptions('/a/path'), {});
  assert.deepEqual(exploreOptions(undefined), {});
  assert.deepEqual(exploreOptions(null), {});
});

test('the Schedules view lists one row per bug: the minimized schedule, not the copies of other workers or as found', () => {
  const doc = (pos: string, preemptions: number, kind = 'deadlock'): string => JSON.stringify({
    format: 'interleave-schedule', version: 1,
    test: { module: 'example.com/bank', package: 'example.com/bank', name: 'TestTransfer' },
    result: { steps: 3, preemptions }, bug: kind === 'pass' ? null : { kind, message: 'all goroutines are blocked', pos, step: 3 }, steps: [],
  });
  const dir = '/m/.interleave/schedules/';
  // One -p 2 run: each worker saved the bug and its copy as found.
  const rows = [
    parseSchedule(dir + 'TestTransfer-deadlock-20261123T230127.759.json', doc('bank.go:46:2', 1)),
    parseSchedule(dir + 'TestTransfer-deadlock-20261123T230127.759.found.json', doc('bank.go:46:2', 3)),
    parseSchedule(dir + 'TestTransfer-deadlock-20261123T230127.801.json', doc('bank.go:46:2', 1)),
    parseSchedule(dir + 'TestTransfer-deadlock-20261123T230127.801.found.json', doc('bank.go:46:2', 2)),
    // Another bug of the same test, and two passing schedules kept as regression tests.
    parseSchedule(dir + 'TestTransfer-deadlock-20261123T230128.000.json', doc('bank.go:50:2', 4)),
    parseSchedule(dir + 'TestTransfer-pass-20261123T230129.000.json', doc('', 0, 'pass')),
    parseSchedule(dir + 'TestTransfer-pass-20261123T230130.000.json', doc('', 0, 'pass')),
  ].map((s) => { assert.ok(s); return s; });
  assert.equal(rows[0].position, 'bank.go:46:2');
  const shown = oneRowPerBug(rows).map((s) => s.path.slice(dir.length));
  assert.deepEqual(shown, [
    'TestTransfer-deadlock-20261123T230127.801.json',
    'TestTransfer-deadlock-20261123T230128.000.json',
    'TestTransfer-pass-20261123T230129.000.json',
    'TestTransfer-pass-20261123T230130.000.json',
  ]);
});
