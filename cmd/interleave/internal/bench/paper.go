package bench

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Paper holds the published results of Tables III and IV (seed 004), as
// sctbench-paper-systematic.tsv and sctbench-paper-randomized.tsv give them.
type Paper struct {
	Rows []PaperRow
}

// PaperRow is one benchmark of the published tables. Numbers are kept as printed: "L" is the
// 100,000 limit (10,000 for chess.IWSQWS and chess.SWSQ, §5), "✗" (written "X" in Table III)
// no bug found, "<1" an estimate below one, "*68%" a share of the schedules explored before
// the limit.
type PaperRow struct {
	ID         int
	Name       string
	Threads    string // threads_n: the PCT parameter n, the most threads observed
	MaxEnabled string // max_enabled
	MaxSteps   string // max_steps_k: the PCT parameter k, the most steps observed
	// Values are the technique columns by their TSV name without the row's prefix:
	// "rand_first_bug", "ipb_bound", "dfs_pct_buggy", ...
	Values map[string]string
}

// Value returns the published value of a technique's column ("first_bug", "buggy", "bound",
// "schedules", "new", "est_worst", "pct_buggy"), with "X" written "✗" as in Table IV; "" when
// the paper has no such column.
func (r *PaperRow) Value(paperTechnique, column string) string {
	if r == nil || paperTechnique == "" {
		return ""
	}
	v := r.Values[paperTechnique+"_"+column]
	if v == "X" {
		v = "✗"
	}
	return v
}

// FirstBug returns the published schedules to first bug as a number: 0 when the bug was not
// found (✗), PaperLimit for "L".
func (r *PaperRow) FirstBug(paperTechnique string) (int, bool) {
	v := r.Value(paperTechnique, "first_bug")
	switch v {
	case "":
		return 0, false
	case "✗":
		return 0, true
	case "L":
		return PaperLimit, true
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, false
	}
	return n, true
}

// Row returns the row of the benchmark with the given id, nil when there is none.
func (p *Paper) Row(id int) *PaperRow {
	if p == nil || id < 0 {
		return nil
	}
	for i := range p.Rows {
		if p.Rows[i].ID == id {
			return &p.Rows[i]
		}
	}
	return nil
}

// Found counts the benchmarks among ids whose bug a paper technique found within limit
// schedules (the published schedules to first bug ≤ limit), and how many of them it has a
// value for.
func (p *Paper) Found(paperTechnique string, limit int, ids []int) (found, of int) {
	for _, id := range ids {
		row := p.Row(id)
		if row == nil {
			continue
		}
		n, ok := row.FirstBug(paperTechnique)
		if !ok {
			continue
		}
		of++
		if n > 0 && n <= limit {
			found++
		}
	}
	return found, of
}

// LoadPaper reads the two published tables and joins them by id.
func LoadPaper(systematicTSV, randomizedTSV string) (*Paper, error) {
	p := &Paper{}
	index := map[int]int{} // id -> position in p.Rows
	for _, file := range []string{systematicTSV, randomizedTSV} {
		f, err := os.Open(file)
		if err != nil {
			return nil, fmt.Errorf("load the paper's table: %w", err)
		}
		rows, err := readPaperTSV(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("load the paper's table %s: %w", file, err)
		}
		for _, r := range rows {
			i, ok := index[r.ID]
			if !ok {
				index[r.ID] = len(p.Rows)
				p.Rows = append(p.Rows, r)
				continue
			}
			have := &p.Rows[i]
			if have.Name != r.Name {
				return nil, fmt.Errorf("load the paper's table %s: row %d is %s here and %s in the other table", file, r.ID, r.Name, have.Name)
			}
			for k, v := range r.Values {
				have.Values[k] = v
			}
		}
	}
	return p, nil
}

// ReadPaper reads one published table from r.
func ReadPaper(r io.Reader) (*Paper, error) {
	rows, err := readPaperTSV(r)
	if err != nil {
		return nil, err
	}
	return &Paper{Rows: rows}, nil
}

func readPaperTSV(r io.Reader) ([]PaperRow, error) {
	sc := bufio.NewScanner(r)
	var header []string
	var rows []PaperRow
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		if text == "" {
			continue
		}
		fields := strings.Split(text, "\t")
		if header == nil {
			header = fields
			if len(header) < 2 || header[0] != "id" || header[1] != "name" {
				return nil, fmt.Errorf("line 1: want a header starting with id, name; got %q", text)
			}
			continue
		}
		if len(fields) != len(header) {
			return nil, fmt.Errorf("line %d: %d fields, the header has %d", line, len(fields), len(header))
		}
		id, err := strconv.Atoi(fields[0])
		if err != nil {
			return nil, fmt.Errorf("line %d: id %q: %v", line, fields[0], err)
		}
		row := PaperRow{ID: id, Name: fields[1], Values: map[string]string{}}
		for i := 2; i < len(header); i++ {
			switch header[i] {
			case "threads_n":
				row.Threads = fields[i]
			case "max_enabled":
				row.MaxEnabled = fields[i]
			case "max_steps_k":
				row.MaxSteps = fields[i]
			default:
				row.Values[header[i]] = fields[i]
			}
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if header == nil {
		return nil, fmt.Errorf("empty table")
	}
	return rows, nil
}
