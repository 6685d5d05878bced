package diagnose

import (
	"strings"
)

// The hovers are Markdown, and most of what they show comes from the results store, which a
// repository can hold as it likes: a bug's message, a test's or a package's name, an
// operation, a goroutine's stack. Every such string goes through one of these helpers, so
// that it is shown as text and never becomes a link, an image, raw HTML or a block of its
// own (a message ending a code fence, then a command: link).

// mdText is s as Markdown text on one line: every ASCII punctuation character
// backslash-escaped (CommonMark lets any be, and then none opens a link, an emphasis, an
// entity or an HTML tag) and every line break a space (a line of its own could start a
// heading, a list, a fence or a link reference definition).
func mdText(s string) string {
	var b strings.Builder
	for _, r := range oneLineOf(s) {
		if r < 0x80 && isASCIIPunct(byte(r)) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// mdCode is s as an inline code span on one line: delimited by a run of backticks longer
// than any run s holds, so that nothing in s ends it.
func mdCode(s string) string {
	s = oneLineOf(s)
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	// A span that starts or ends with a backtick, or with a space at both ends, is padded
	// with a space at both ends, which CommonMark removes.
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") ||
		(strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ") && strings.Trim(s, " ") != "") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// mdFence is s as a fenced code block of the given info string: its fence is a run of
// backticks longer than any s holds, so that no line of s closes it. The block ends with a
// line break.
func mdFence(info, s string) string {
	fence := strings.Repeat("`", max(3, longestRun(s, '`')+1))
	return fence + info + "\n" + s + "\n" + fence + "\n"
}

// oneLineOf replaces the line breaks of s (\r\n, \r, \n, which CommonMark all takes as line
// endings) and the other control characters with spaces.
func oneLineOf(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	longest, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			longest = max(longest, n)
		} else {
			n = 0
		}
	}
	return longest
}

// isASCIIPunct reports whether c is ASCII punctuation as CommonMark defines it (what a
// backslash may escape).
func isASCIIPunct(c byte) bool {
	return strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", c) >= 0
}
