package bench

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Cumulative returns the points of one technique's line of Figure 4 (seed 004, §6.1): "If a
// given technique has a point at coordinate (x, y) then there were y benchmarks for which the
// technique was able to expose a bug using x schedules or fewer". The points are the
// distinct schedules-to-first-bug values, sorted, with the count up to each; toys are not
// counted.
func Cumulative(r *Run, technique string) plotter.XYs {
	var firsts []int
	for _, b := range r.Benchmarks {
		if b.Toy() {
			continue
		}
		if c := r.Cell(b.Package, technique); c != nil && c.Found() {
			firsts = append(firsts, c.FirstBug)
		}
	}
	sort.Ints(firsts)
	var xys plotter.XYs
	for i, x := range firsts {
		if i+1 < len(firsts) && firsts[i+1] == x {
			continue
		}
		xys = append(xys, plotter.XY{X: float64(x), Y: float64(i + 1)})
	}
	return xys
}

// lineColors are distinct enough for thirteen lines, which plotutil's seven are not; each
// technique also gets its own dash pattern.
var lineColors = []color.RGBA{
	{R: 0xe6, G: 0x19, B: 0x4b, A: 0xff}, {R: 0x3c, G: 0xb4, B: 0x4b, A: 0xff}, {R: 0x43, G: 0x63, B: 0xd8, A: 0xff},
	{R: 0xf5, G: 0x82, B: 0x31, A: 0xff}, {R: 0x91, G: 0x1e, B: 0xb4, A: 0xff}, {R: 0x42, G: 0xd4, B: 0xf4, A: 0xff},
	{R: 0xf0, G: 0x32, B: 0xe6, A: 0xff}, {R: 0x80, G: 0x80, B: 0x00, A: 0xff}, {R: 0x00, G: 0x00, B: 0x75, A: 0xff},
	{R: 0x9a, G: 0x63, B: 0x24, A: 0xff}, {R: 0x80, G: 0x00, B: 0x00, A: 0xff}, {R: 0x46, G: 0x99, B: 0x90, A: 0xff},
	{R: 0x00, G: 0x00, B: 0x00, A: 0xff},
}

var lineDashes = [][]vg.Length{
	nil,
	{vg.Points(6), vg.Points(2)},
	{vg.Points(2), vg.Points(2)},
	{vg.Points(6), vg.Points(2), vg.Points(2), vg.Points(2)},
}

// Figure4 draws the cumulative plot of the study's Figure 4: bugs found (y) after x schedules
// (x, log scale), one line per technique, each labelled with its name and the number of bugs
// it found within the limit, as the study labels them; for the study's techniques the label
// adds what the study found on the same benchmarks within the same limit (paper may be nil).
// Lines stop at the limit.
func Figure4(r *Run, paper *Paper) (*figure, error) {
	p := plot.New()
	var ids []int
	for _, b := range r.Benchmarks {
		if !b.Toy() {
			ids = append(ids, b.ID)
		}
	}
	n := len(ids)
	p.Title.Text = fmt.Sprintf("SCTBench-Go: bugs found after x schedules (%d benchmarks, limit %d)", n, r.Limit)
	p.X.Label.Text = "schedules (log scale)"
	p.Y.Label.Text = "bugs found"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.X.Min, p.X.Max = 1, math.Max(10, float64(r.Limit))
	p.Y.Min, p.Y.Max = 0, float64(max(n, 1))
	var yticks []plot.Tick
	for y := 0; y <= n; y += 5 {
		label := ""
		if y%10 == 0 {
			label = strconv.Itoa(y)
		}
		yticks = append(yticks, plot.Tick{Value: float64(y), Label: label})
	}
	p.Y.Tick.Marker = plot.ConstantTicks(yticks)
	p.Add(plotter.NewGrid())
	// The legend is drawn beside the plot, not over the lines.
	legend := plot.NewLegend()
	legend.Top, legend.Left = true, true
	legend.ThumbnailWidth = vg.Points(28)
	for i, t := range r.SelectedTechniques() {
		pts := Cumulative(r, t.Key)
		// Start at (1, 0) and run on to the limit, so that each line reads as a step function
		// over the whole axis.
		line := plotter.XYs{{X: 1, Y: 0}}
		for _, q := range pts {
			if q.X == 1 {
				line[0].Y = q.Y
				continue
			}
			line = append(line, q)
		}
		last := line[len(line)-1]
		if last.X < p.X.Max {
			line = append(line, plotter.XY{X: p.X.Max, Y: last.Y})
		}
		l, err := plotter.NewLine(line)
		if err != nil {
			return nil, fmt.Errorf("figure 4: line of %s: %w", t.Label, err)
		}
		l.StepStyle = plotter.PostStep
		l.LineStyle = draw.LineStyle{Color: lineColors[i%len(lineColors)], Width: vg.Points(1.6), Dashes: lineDashes[i%len(lineDashes)]}
		p.Add(l)
		label := fmt.Sprintf("%s (%d)", t.Label, int(last.Y))
		if t.Paper != "" && paper != nil {
			found, _ := paper.Found(t.Paper, r.Limit, ids)
			label = fmt.Sprintf("%s (%d; paper %d)", t.Label, int(last.Y), found)
		}
		legend.Add(label, l)
	}
	return &figure{plot: p, legend: legend}, nil
}

// figure is the plot with its legend, drawn to its right.
type figure struct {
	plot   *plot.Plot
	legend plot.Legend
}

// legendWidth is the room the legend takes on the right.
const legendWidth = 2.6 * vg.Inch

func (f *figure) draw(c draw.Canvas) {
	f.plot.Draw(draw.Crop(c, 0, -legendWidth, 0, 0))
	lc := draw.Crop(c, c.Max.X-c.Min.X-legendWidth+vg.Points(10), 0, 0, -vg.Points(30))
	f.legend.Draw(lc)
}

// SaveFigure4 writes Figure 4 to each of files; the format follows the extension (.svg, .png).
func SaveFigure4(r *Run, paper *Paper, files ...string) error {
	fig, err := Figure4(r, paper)
	if err != nil {
		return err
	}
	const w, h = 11 * vg.Inch, 6.5 * vg.Inch
	for _, file := range files {
		var canvas interface {
			vg.CanvasSizer
			io.WriterTo
		}
		switch ext := strings.ToLower(filepath.Ext(file)); ext {
		case ".svg":
			canvas = vgsvg.New(w, h)
		case ".png":
			canvas = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(110))}
		default:
			return fmt.Errorf("figure 4: %s: unknown format %q (want .svg or .png)", file, ext)
		}
		fig.draw(draw.New(canvas))
		if err := writeFile(file, canvas); err != nil {
			return fmt.Errorf("figure 4: %w", err)
		}
	}
	return nil
}

func writeFile(path string, w io.WriterTo) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := w.WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}
