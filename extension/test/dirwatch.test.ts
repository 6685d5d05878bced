import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DirWatcher, isStoreDocument, StoreFileEvent } from '../src/store/dirwatch';

/** A DirWatcher whose events are awaited one by one. */
function recorder(since: number): { w: DirWatcher; next: (match: (e: StoreFileEvent) => boolean) => Promise<StoreFileEvent> } {
  const seen: StoreFileEvent[] = [];
  let waiting: (() => void) | undefined;
  const w = new DirWatcher(since, (e) => {
    seen.push(e);
    waiting?.();
  });
  const next = async (match: (e: StoreFileEvent) => boolean): Promise<StoreFileEvent> => {
    for (;;) {
      const i = seen.findIndex(match);
      if (i >= 0) {
        return seen.splice(i, 1)[0];
      }
      await new Promise<void>((resolve) => (waiting = resolve));
    }
  };
  return { w, next };
}

/** Writes a document as interleave does: a temporary file renamed into place. */
function writeDoc(file: string, text: string): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.123.tmp`);
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
}

test('store documents: JSON files, not the temporary files they are written from', () => {
  assert.ok(isStoreDocument('20261125T063409.605.json'));
  assert.ok(!isStoreDocument('.20261125T063409.605.json.123.tmp'));
  assert.ok(!isStoreDocument('.x.json'));
  assert.ok(!isStoreDocument('notes.txt'));
});

test('a directory made inside one just made: its documents are reported, those written before the watch too', { timeout: 30000 }, async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'dirwatch-'));
  try {
    const runs = path.join(root, '.interleave', 'runs');
    const { w, next } = recorder(0);
    assert.equal(w.watch(runs), false, 'a directory that does not exist is not watched');
    fs.mkdirSync(runs, { recursive: true });
    const before = path.join(runs, 'a.json');
    writeDoc(before, '{}');
    assert.equal(w.watch(runs), true);
    assert.equal(w.watch(runs), true, 'watched once');
    assert.deepEqual(w.dirs, [runs]);
    assert.deepEqual(await next((e) => e.file === before), { file: before, deleted: false });
    const after = path.join(runs, 'b.json');
    writeDoc(after, '{}');
    assert.deepEqual(await next((e) => e.file === after && !e.deleted), { file: after, deleted: false });
    fs.rmSync(after);
    assert.deepEqual(await next((e) => e.file === after && e.deleted), { file: after, deleted: true });
    w.dispose();
    assert.deepEqual(w.dirs, []);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('documents older than the watcher are not reported when a directory is first watched', { timeout: 30000 }, async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'dirwatch-'));
  try {
    const old = path.join(root, 'old.json');
    writeDoc(old, '{}');
    const past = new Date(Date.now() - 60000);
    fs.utimesSync(old, past, past);
    const { w, next } = recorder(Date.now() - 1000);
    assert.ok(w.watch(root));
    const fresh = path.join(root, 'fresh.json');
    writeDoc(fresh, '{}');
    // The first event is the fresh document: the old one was listed and left out.
    assert.equal((await next(() => true)).file, fresh);
    w.dispose();
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('a watched directory removed is reported, and watched again when it is made again', { timeout: 30000 }, async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'dirwatch-'));
  try {
    const runs = path.join(root, 'runs');
    fs.mkdirSync(runs);
    const { w, next } = recorder(0);
    assert.ok(w.watch(runs));
    const doc = path.join(runs, 'a.json');
    writeDoc(doc, '{}');
    await next((e) => e.file === doc && !e.deleted);
    fs.rmSync(runs, { recursive: true });
    assert.deepEqual(await next((e) => e.file === runs), { file: runs, deleted: true });
    assert.deepEqual(w.dirs, []);
    fs.mkdirSync(runs);
    writeDoc(doc, '{}');
    assert.ok(w.watch(runs));
    assert.equal((await next((e) => e.file === doc && !e.deleted)).file, doc);
    w.dispose();
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
