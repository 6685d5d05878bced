// Reading a results store's documents from disk within the bounds the interleave command keeps
// (its package engine/bounded): regular files only, opened without waiting on a FIFO, and at
// most a limit each, read so that a file growing meanwhile stays within it. A planted
// /dev/zero, FIFO or 10 GB file is refused with an error that names it, instead of filling
// the extension host's memory or holding one of its threads for ever. Node's fs only: tested
// without an editor.

import * as fs from 'node:fs';

/** The most bytes a kind of file may hold, and what the kind is called in errors. */
export interface Limit {
  what: string;
  max: number;
}

const MiB = 1024 * 1024;

/** The limits of the interleave command's package bounded, for the documents the extension reads. */
export const limits = {
  /** A schedule file: a livelock's, at the step bound, is about 10 MB. */
  schedule: { what: 'a schedule file', max: 256 * MiB },
  /** A run summary (.interleave/runs): an outcome per test. */
  summary: { what: 'a run summary', max: 32 * MiB },
  /** A Go source file (a test file to discover tests in, a go.mod). */
  source: { what: 'a source file', max: 64 * MiB },
} satisfies Record<string, Limit>;

/** The error of a file refused: not a regular file, or past its limit. */
export class RefusedError extends Error {
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message);
    this.name = 'RefusedError';
  }
}

/** The kind of file of a stat, with its article: "a directory", "a FIFO (named pipe)". */
export function kindOf(st: fs.Stats): string {
  if (st.isFile()) {
    return 'a regular file';
  }
  if (st.isDirectory()) {
    return 'a directory';
  }
  if (st.isSymbolicLink()) {
    return 'a symbolic link';
  }
  if (st.isFIFO()) {
    return 'a FIFO (named pipe)';
  }
  if (st.isSocket()) {
    return 'a socket';
  }
  if (st.isCharacterDevice()) {
    return 'a character device';
  }
  if (st.isBlockDevice()) {
    return 'a block device';
  }
  return 'a special file';
}

/** A size for a person: "256 MiB", "10 GiB", "812 bytes". */
export function sizeText(n: number): string {
  const units: [number, string][] = [[2 ** 40, 'TiB'], [2 ** 30, 'GiB'], [MiB, 'MiB'], [1024, 'KiB']];
  for (const [u, name] of units) {
    if (n >= u) {
      return n % u === 0 ? `${n / u} ${name}` : `${(n / u).toFixed(1)} ${name}`;
    }
  }
  return n === 1 ? '1 byte' : `${n} bytes`;
}

function notRegular(file: string, st: fs.Stats, limit: Limit): RefusedError {
  return new RefusedError(`read ${file}: not a regular file but ${kindOf(st)}: refusing to read it as ${limit.what}`, file);
}

/** sizeText, with the number of bytes beside it when sizeText rounds it. */
function exact(n: number): string {
  return n < 1024 ? sizeText(n) : `${sizeText(n)} (${n} bytes)`;
}

function tooLarge(file: string, size: number | undefined, limit: Limit): RefusedError {
  const max = `${exact(limit.max)}, the limit of ${limit.what}`;
  return new RefusedError(
    size === undefined
      ? `read ${file}: more than ${max}: refusing to read the rest`
      : `read ${file}: ${exact(size)}, more than ${max}: refusing to read it`,
    file,
  );
}

// O_NONBLOCK: opening a FIFO for reading otherwise waits for a writer. Windows has no such
// flag, nor FIFOs in the file system.
const openFlags = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0);

/**
 * Reads the file at path as UTF-8 text if it is a regular file of at most limit.max bytes
 * (following symbolic links). A file refused gives a RefusedError; one that cannot be read,
 * Node's error. firstLook false skips the look before opening, for tests of what happens when
 * a FIFO takes a regular file's place after it.
 */
export async function readBounded(file: string, limit: Limit, firstLook = true): Promise<string> {
  // A first look, so that a device is not even opened (opening one can have effects) ...
  if (firstLook) {
    const before = await fs.promises.stat(file);
    if (!before.isFile()) {
      throw notRegular(file, before, limit);
    }
    if (before.size > limit.max) {
      throw tooLarge(file, before.size, limit);
    }
  }
  // ... and the look that counts, at what was opened: the path may have changed since.
  const fh = await fs.promises.open(file, openFlags);
  try {
    const st = await fh.stat();
    if (!st.isFile()) {
      throw notRegular(file, st, limit);
    }
    if (st.size > limit.max) {
      throw tooLarge(file, st.size, limit);
    }
    // Up to one byte past the limit: a file that grew is refused, not read to its end.
    let buf = Buffer.alloc(Math.min(st.size + 1, limit.max + 1));
    let n = 0;
    for (;;) {
      if (n === buf.length) {
        if (n > limit.max) {
          throw tooLarge(file, undefined, limit);
        }
        const bigger = Buffer.alloc(Math.min(buf.length * 2, limit.max + 1));
        buf.copy(bigger, 0, 0, n);
        buf = bigger;
      }
      const { bytesRead } = await fh.read(buf, n, buf.length - n, null);
      if (bytesRead === 0) {
        break;
      }
      n += bytesRead;
    }
    return new TextDecoder().decode(buf.subarray(0, n));
  } finally {
    await fh.close();
  }
}
