// Discovering the tests of a Go file by its text, as the Testing view needs them: every
// func TestXxx(t *testing.T) and the t.Run subtests with literal names inside it. It works on
// files that do not compile; tested without an editor.

/** A test or subtest and where it is (0-based line). */
export interface FoundTest {
  name: string;
  line: number;
  subtests: FoundTest[];
}

const testFunc = /^func\s+(Test[A-Z_0-9]\w*|Test)\s*\(\s*(\w+)\s+\*testing\.T\s*\)/;

/** Lists the tests of a _test.go file's text. */
export function discoverTests(text: string): FoundTest[] {
  const lines = text.split(/\r?\n/);
  const tests: FoundTest[] = [];
  let current: { test: FoundTest; param: string } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const m = testFunc.exec(line);
    if (m !== null) {
      current = { test: { name: m[1], line: i, subtests: [] }, param: m[2] };
      tests.push(current.test);
      continue;
    }
    if (/^\S/.test(line) && !line.startsWith('}')) {
      current = undefined; // another top-level declaration
      continue;
    }
    if (current !== undefined) {
      const run = new RegExp(`\\b${current.param}\\.Run\\(\\s*"((?:[^"\\\\]|\\\\.)*)"`).exec(line);
      if (run !== null) {
        current.test.subtests.push({ name: run[1].replace(/\s/g, '_'), line: i, subtests: [] });
      }
    }
  }
  return tests;
}

/** The -run pattern that selects exactly a test (and a subtest under it). */
export function runPattern(test: string, subtest?: string): string {
  const quote = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return subtest === undefined ? `^${quote(test)}$` : `^${quote(test)}$/^${quote(subtest)}$`;
}
