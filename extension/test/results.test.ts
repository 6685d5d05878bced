import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { itemDescription, parseFindingsRaces, passText, raceText, runDuration } from '../src/testing/results';

const findings = JSON.stringify({
  format: 'interleave-findings', version: 1,
  test: { module: 'example.com/feed', package: 'example.com/feed', name: 'TestRace' },
  races: [{
    a: { pos: 'racy.go:6:2', file: 'racy.go', line: 6, col: 2, op: 'write', goroutine: 1 },
    b: { pos: 'racy.go:9:25', file: 'racy.go', line: 9, col: 25, op: 'read', goroutine: 0 },
    firstSchedule: 1, schedules: 12,
  }, { a: { op: 'write' } }],
});

test('a passing test with a race says so: in its output, at both racy lines, and beside the item', () => {
  const races = parseFindingsRaces(findings);
  assert.equal(races.length, 1, 'a race without positions is left out');
  assert.equal(raceText(races[0], 'a'), 'data race: write at racy.go:6:2 (G1) and read at racy.go:9:25 (G0), seen in 12 schedule(s)');
  assert.equal(raceText(races[0], 'b'), 'data race: read at racy.go:9:25 (G0) and write at racy.go:6:2 (G1), seen in 12 schedule(s)');
  const pass = { Action: 'pass', Test: 'TestRace', Schedules: 40, Interleavings: 7, Races: 1, Findings: '/m/.interleave/findings/x.json', Notice: 'a goroutine went on after the test' };
  assert.equal(passText(pass, 'no bug in 40 schedules'), 'passed with 1 data race: no bug in 40 schedules\na goroutine went on after the test');
  assert.equal(itemDescription(pass), '⚠ 1 data race');
  const clean = { Action: 'pass', Test: 'TestClean', Schedules: 40 };
  assert.equal(passText(clean, 'no bug in 40 schedules'), 'no bug in 40 schedules');
  assert.equal(itemDescription(clean), undefined);
  assert.equal(itemDescription({ Action: 'pass', Races: 3 }), '⚠ 3 data races');
  assert.deepEqual(parseFindingsRaces('{"format":"interleave-schedule"}'), []);
  assert.deepEqual(parseFindingsRaces('{half'), []);
});

test('a test run lasts as long as it was waited for, not the exploration\'s own time', () => {
  assert.equal(runDuration(1000, 7000), 6000);
  assert.equal(runDuration(7000, 1000), 0);
});
