package diagnose

import "testing"

// TestMarkdownHelpers: text is escaped and on one line, a code span's and a fence's run of
// backticks is longer than any the string holds.
func TestMarkdownHelpers(t *testing.T) {
	for _, tc := range []struct {
		name, got, want string
	}{
		{"text", mdText("a [x](command:c) <b> *e* & `c`"), `a \[x\]\(command\:c\) \<b\> \*e\* \& \` + "`c\\`"},
		{"text on one line", mdText("a\n# h\r\n- l\rb"), `a \# h  \- l b`},
		{"text not ASCII", mdText("é — ✕"), "é — ✕"},
		{"code", mdCode("c.n"), "`c.n`"},
		{"code with backticks", mdCode("a ``` b"), "````a ``` b````"},
		{"code starting with a backtick", mdCode("`x"), "`` `x ``"},
		{"code with spaces at both ends", mdCode(" x "), "`  x  `"},
		{"code on one line", mdCode("a\n\nb"), "`a  b`"},
		{"fence", mdFence("text", "x"), "```text\nx\n```\n"},
		{"fence of a message with a fence", mdFence("text", "a\n```\n[x](command:c)\n`````"), "``````text\na\n```\n[x](command:c)\n`````\n``````\n"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, tc.got, tc.want)
		}
	}
}
