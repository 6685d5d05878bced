import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as cp from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { limits, readBounded, RefusedError, sizeText } from '../src/store/read';

const small = { what: 'a test file', max: 10 };

/** Asserts that reading file within limit is refused with a message that says each of want. */
async function refused(file: string, limit: { what: string; max: number }, want: string[], firstLook = true): Promise<void> {
  await assert.rejects(readBounded(file, limit, firstLook), (err: unknown) => {
    assert.ok(err instanceof RefusedError, `not a RefusedError: ${String(err)}`);
    for (const w of want) {
      assert.ok(err.message.includes(w), `${JSON.stringify(err.message)} does not say ${JSON.stringify(w)}`);
    }
    return true;
  });
}

test('regular files within the limit are read; larger, sparse or not regular ones are refused', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'interleave-read-'));
  try {
    const ok = path.join(dir, 'ok.json');
    fs.writeFileSync(ok, '0123456789');
    assert.equal(await readBounded(ok, small), '0123456789');
    const link = path.join(dir, 'link.json');
    fs.symlinkSync(ok, link);
    assert.equal(await readBounded(link, small), '0123456789');
    const empty = path.join(dir, 'empty.json');
    fs.writeFileSync(empty, '');
    assert.equal(await readBounded(empty, small), '');

    const over = path.join(dir, 'over.json');
    fs.writeFileSync(over, '0123456789x');
    await refused(over, small, [over, '11 bytes, more than 10 bytes, the limit of a test file: refusing to read it']);

    // A sparse file one byte past the schedule limit: refused by its size, no byte read.
    const sparse = path.join(dir, 'sparse.json');
    fs.writeFileSync(sparse, '');
    fs.truncateSync(sparse, limits.schedule.max + 1);
    await refused(sparse, limits.schedule, [sparse, '256.0 MiB (268435457 bytes), more than 256 MiB (268435456 bytes), the limit of a schedule file']);

    const dirJSON = path.join(dir, 'x.json');
    fs.mkdirSync(dirJSON);
    await refused(dirJSON, limits.schedule, [dirJSON, 'not a regular file but a directory', 'as a schedule file']);

    await assert.rejects(readBounded(path.join(dir, 'missing.json'), small), { code: 'ENOENT' });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('/dev/zero is refused, not read until memory runs out', { skip: !fs.existsSync('/dev/zero') }, async () => {
  await refused('/dev/zero', limits.summary, ['/dev/zero: not a regular file but a character device', 'as a run summary']);
  await refused('/dev/zero', limits.summary, ['/dev/zero: not a regular file but a character device'], false);
});

test('a FIFO without a writer is refused at once, even when it comes after the first look', { skip: process.platform === 'win32', timeout: 60_000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'interleave-read-'));
  const fifo = path.join(dir, 'fifo.json');
  try {
    cp.execFileSync('mkfifo', [fifo]);
    await refused(fifo, limits.schedule, [fifo, 'not a regular file but a FIFO (named pipe)']);
    await refused(fifo, limits.schedule, [fifo, 'not a regular file but a FIFO (named pipe)'], false);
  } finally {
    // Were a read waiting on the FIFO, a writer releases it.
    try {
      fs.closeSync(fs.openSync(fifo, fs.constants.O_RDWR | fs.constants.O_NONBLOCK));
    } catch {
      // no FIFO
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('sizes are written for a person', () => {
  assert.equal(sizeText(1), '1 byte');
  assert.equal(sizeText(812), '812 bytes');
  assert.equal(sizeText(1536), '1.5 KiB');
  assert.equal(sizeText(256 * 1024 * 1024), '256 MiB');
  assert.equal(sizeText(10 * 2 ** 30), '10 GiB');
});
