import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Step, blockedSpans, buildModel, holdSpans, moveSelection, opFamily, opLabel, revealRange, rowsOf, runSteps, zoomRange } from '../src/timeline/model';

const s = (g: number, op: string, name = '', obj = 0, enabled?: number[], pos = `f.go:${g}:1`): Step => {
  const st: Step = { g, op, pos };
  if (name) st.name = name;
  if (obj) st.obj = obj;
  if (enabled) st.enabled = enabled;
  return st;
};
const model = (steps: Step[], bugStep = 0) => buildModel({ title: 't', steps, bugStep, bugKind: bugStep ? 'deadlock' : '' });

// The lockorder deadlock as the adapter's interleaveTimeline returns it (dap/dap_test.go).
const lockorder: Step[] = [
  s(0, 'wg.add', 'wg', 1, [0]), s(0, 'go', '', 0, [0]), s(0, 'go', '', 0, [0, 1]), s(0, 'wg.wait', 'wg', 1, [0, 1, 2]),
  s(1, 'read', 'alice', 2, [1, 2]), s(1, 'read', 'bob', 3, [1, 2]), s(1, 'lock', 'from.mu', 4, [1, 2]),
  s(2, 'read', 'bob', 3, [1, 2]), s(2, 'read', 'alice', 2, [1, 2]), s(2, 'lock', 'from.mu', 5, [1, 2]),
];

test('operations are labelled with their object, coloured by family', () => {
  const tests: [string, string | undefined, string, string][] = [
    ['lock', 'from.mu', 'lock from.mu', 'lock'],
    ['send', 'ch', 'send ch', 'chan'],
    ['recv', 'done', 'recv done', 'chan'],
    ['read', 'x', 'read x', 'memory'],
    ['write', 'accounts[i].balance', 'write accounts[i].balance', 'memory'],
    ['wg.wait', 'wg', 'wg.wait wg', 'lock'],
    ['atomic.rmw', 'n', 'atomic.rmw n', 'atomic'],
    ['go', undefined, 'go', 'go'],
    ['sleep', undefined, 'sleep', 'time'],
    ['', undefined, '?', 'other'],
  ];
  for (const [op, name, label, family] of tests) {
    assert.equal(opLabel(op, name), label);
    assert.equal(opFamily(op), family, op);
  }
});

test('one lane per goroutine, the preemptions where the previous goroutine was still enabled', () => {
  const tests: { name: string; steps: Step[]; lanes: number[]; preemptions: number[]; known: boolean }[] = [
    { name: 'lockorder', steps: lockorder, lanes: [0, 1, 2], preemptions: [8], known: true },
    // G0 blocks in wg.wait: the switch to G1 at step 5 is not a preemption; G1 still enabled at step 8 is.
    { name: 'a switch after a goroutine blocks is none', steps: [s(0, 'wg.wait', 'wg', 1, [0]), s(1, 'lock', 'mu', 2, [1])], lanes: [0, 1], preemptions: [], known: true },
    { name: 'the file alone: enabled unknown', steps: [s(0, 'go'), s(1, 'lock', 'mu'), s(0, 'lock', 'mu')], lanes: [0, 1], preemptions: [], known: false },
    { name: 'none', steps: [], lanes: [], preemptions: [], known: false },
    { name: 'lanes in goroutine order', steps: [s(3, 'read', 'x', 1, [3, 1]), s(1, 'read', 'x', 1, [3, 1])], lanes: [1, 3], preemptions: [2], known: true },
  ];
  for (const tt of tests) {
    const m = model(tt.steps);
    assert.deepEqual(m.lanes, tt.lanes, tt.name);
    assert.deepEqual(m.preemptions, tt.preemptions, tt.name);
    assert.deepEqual(m.ops.filter((o) => o.preempt).map((o) => o.step), tt.preemptions, tt.name);
    assert.equal(m.enabledKnown, tt.known, tt.name);
    assert.equal(m.steps, tt.steps.length, tt.name);
  }
  assert.deepEqual(model(lockorder).ops[6], { step: 7, g: 1, op: 'lock', label: 'lock from.mu', pos: 'f.go:1:1', family: 'lock', preempt: false });
});

test('lock-held spans run from the lock to the unlock of the same object', () => {
  const tests: { name: string; steps: Step[]; want: [number, number, number, string][] }[] = [
    { name: 'lockorder: both never released', steps: lockorder, want: [[1, 7, 10, 'holds from.mu (never released)'], [2, 10, 10, 'holds from.mu (never released)']] },
    { name: 'lock, unlock', steps: [s(1, 'lock', 'mu', 1), s(2, 'read', 'x', 2), s(1, 'unlock', 'mu', 1)], want: [[1, 1, 3, 'holds mu']] },
    { name: 'same name, other objects', steps: [s(1, 'lock', 'a.mu', 1), s(2, 'lock', 'a.mu', 2), s(2, 'unlock', 'a.mu', 2), s(1, 'unlock', 'a.mu', 1)], want: [[1, 1, 4, 'holds a.mu'], [2, 2, 3, 'holds a.mu']] },
    { name: 'by name when the file gives no number', steps: [s(1, 'lock', 'mu'), s(1, 'unlock', 'mu')], want: [[1, 1, 2, 'holds mu']] },
    { name: 'read locks released by their holder', steps: [s(1, 'rlock', 'rw', 1), s(2, 'rlock', 'rw', 1), s(1, 'runlock', 'rw', 1), s(2, 'runlock', 'rw', 1)], want: [[1, 1, 3, 'read-holds rw'], [2, 2, 4, 'read-holds rw']] },
    { name: 'unlocked by another goroutine', steps: [s(1, 'lock', 'mu', 1), s(2, 'unlock', 'mu', 1)], want: [[1, 1, 2, 'holds mu']] },
    { name: 'no object: left out; trylock too', steps: [s(1, 'lock'), s(1, 'trylock', 'mu', 1), s(1, 'unlock', 'mu', 1)], want: [] },
  ];
  for (const tt of tests) {
    assert.deepEqual(holdSpans(tt.steps).map((x) => [x.g, x.from, x.to, x.label]), tt.want, tt.name);
  }
});

test('blocked spans: the steps between two of a goroutine\'s steps at which it was not enabled', () => {
  const tests: { name: string; steps: Step[]; want: [number, number, number, string][] }[] = [
    {
      name: 'waits for a receiver',
      steps: [s(1, 'send', 'ch', 1, [1, 2]), s(2, 'read', 'x', 2, [1, 2]), s(2, 'read', 'x', 2, [2]), s(2, 'recv', 'ch', 1, [2]), s(1, 'send', 'ch', 1, [1])],
      want: [[1, 3, 4, 'waits to send ch']],
    },
    { name: 'enabled all along: not blocked', steps: [s(1, 'read', 'x', 1, [1, 2]), s(2, 'read', 'x', 1, [1, 2]), s(1, 'read', 'x', 1, [1, 2])], want: [] },
    { name: 'never runs again: left out', steps: [s(1, 'lock', 'mu', 1, [1, 2]), s(2, 'read', 'x', 2, [2]), s(2, 'read', 'x', 2, [2])], want: [] },
    {
      name: 'two spans in one gap',
      steps: [s(1, 'lock', 'mu', 1, [1, 2]), s(2, 'a', '', 0, [2]), s(2, 'b', '', 0, [1, 2]), s(2, 'c', '', 0, [2]), s(1, 'lock', 'mu', 1, [1, 2])],
      want: [[1, 2, 2, 'waits to lock mu'], [1, 4, 4, 'waits to lock mu']],
    },
  ];
  for (const tt of tests) {
    const lanes = [...new Set(tt.steps.map((x) => x.g))];
    assert.deepEqual(blockedSpans(tt.steps, lanes).map((x) => [x.g, x.from, x.to, x.label]), tt.want, tt.name);
  }
  // Without enabled goroutines (the file alone) the model has none.
  assert.deepEqual(model([s(1, 'send', 'ch'), s(2, 'recv', 'ch'), s(1, 'send', 'ch')]).spans.filter((x) => x.kind === 'blocked'), []);
});

test('overlapping spans go to separate rows', () => {
  const span = (from: number, to: number) => ({ g: 1, kind: 'holds' as const, from, to, label: '', family: 'lock', pos: '' });
  assert.deepEqual(rowsOf([span(1, 10), span(2, 3), span(4, 12), span(11, 12)]).map((r) => r.map((x) => [x.from, x.to])), [[[1, 10], [11, 12]], [[2, 3], [4, 12]]]);
  assert.deepEqual(rowsOf([]), []);
});

test('keyboard: arrows, Shift+arrows to the preemptions, Home/End, pages', () => {
  const m = model(lockorder);
  const tests: [number, string, boolean, number | undefined][] = [
    [5, 'ArrowLeft', false, 4], [1, 'ArrowLeft', false, 1], [5, 'ArrowRight', false, 6], [10, 'ArrowRight', false, 10],
    [2, 'ArrowRight', true, 8], [9, 'ArrowLeft', true, 8], [8, 'ArrowRight', true, 8],
    [5, 'Home', false, 1], [5, 'End', false, 10], [5, 'PageDown', false, 10], [5, 'PageUp', false, 1], [5, 'x', false, undefined],
  ];
  for (const [at, key, shift, want] of tests) {
    assert.equal(moveSelection(m, at, key, shift), want, `${key}${shift ? '+shift' : ''} from ${at}`);
  }
});

test('zoom and scroll stay within the schedule', () => {
  assert.deepEqual(zoomRange(0, 100, 50, 0.5, 10000), [25, 75]);
  assert.deepEqual(zoomRange(0, 100, 0, 0.5, 10000), [0, 50]);
  assert.deepEqual(zoomRange(9900, 10000, 9990, 4, 10000), [9600, 10000]);
  assert.deepEqual(zoomRange(0, 10, 5, 0.1, 10000), [1, 9]); // no narrower than 8 steps
  assert.deepEqual(zoomRange(0, 100, 50, 1000, 200), [0, 200]);
  assert.deepEqual(revealRange(0, 100, 50, 10000), [0, 100]); // visible: unchanged
  assert.deepEqual(revealRange(0, 100, 500, 10000), [420, 520]);
  assert.deepEqual(revealRange(420, 520, 10, 10000), [0, 100]);
  assert.deepEqual(revealRange(0, 100, 10000, 10000), [9900, 10000]);
});

test('10,000 steps make a model fast', () => {
  const steps: Step[] = [];
  for (let i = 0; i < 10000; i++) {
    const g = i % 7 === 0 ? 1 : (i >> 4) % 4;
    steps.push(s(g, i % 3 === 0 ? 'lock' : i % 3 === 1 ? 'unlock' : 'send', 'mu', 1 + (i % 5), [0, 1, 2, 3].filter((x) => (x + i) % 5 !== 0 || x === g)));
  }
  const t0 = performance.now();
  const m = model(steps);
  const ms = performance.now() - t0;
  assert.equal(m.ops.length, 10000);
  assert.ok(m.preemptions.length > 0);
  assert.ok(ms < 2000, `${ms} ms`);
});

test('the adapter\'s steps are read with their names, objects and enabled goroutines', () => {
  assert.deepEqual(runSteps([{ g: 1, op: 'lock', pos: 'b.go:4:2', name: 'mu', obj: 3, enabled: [1, 2] }, { choice: 1 }, { g: 2, op: 'go', pos: '', name: '', obj: 0 }]), [
    { g: 1, op: 'lock', pos: 'b.go:4:2', name: 'mu', obj: 3, enabled: [1, 2] },
    { g: 2, op: 'go', pos: '' },
  ]);
});
