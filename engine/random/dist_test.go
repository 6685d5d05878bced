package random

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// n is the number of samples of the statistical tests. Their bounds are five standard errors
// (tol): wide enough that the fixed seeds cannot fail them by chance (and the seeds are
// fixed, so they cannot flake), tight enough that a wrong formula misses them by far.
const (
	n   = 100_000
	tol = 5
)

// newRand returns a deterministic source for the test named seed.
func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
}

// draw returns n samples of sample as float64.
func draw(seed uint64, sample func(*rand.Rand) float64) []float64 {
	r := newRand(seed)
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = sample(r)
	}
	return xs
}

// sampler returns the Sample of d as a float64 function.
func sampler[T Number](d Dist[T]) func(*rand.Rand) float64 {
	return func(r *rand.Rand) float64 { return float64(d.Sample(r)) }
}

// moments are the sample mean and variance with their standard errors.
type moments struct {
	mean, variance     float64
	seMean, seVariance float64
}

func momentsOf(xs []float64) moments {
	var sum float64
	for _, x := range xs {
		sum += x
	}
	k := float64(len(xs))
	mean := sum / k
	var m2, m4 float64
	for _, x := range xs {
		d := (x - mean) * (x - mean)
		m2 += d
		m4 += d * d
	}
	m2 /= k
	m4 /= k
	return moments{
		mean: mean, variance: m2,
		seMean:     math.Sqrt(m2 / k),
		seVariance: math.Sqrt(math.Max(m4-m2*m2, 0) / k),
	}
}

// near checks got against want within tol standard errors se (and a little rounding).
func near(t *testing.T, what string, got, want, se float64) {
	t.Helper()
	if d := math.Abs(got - want); d > tol*se+1e-12*math.Abs(want) {
		t.Errorf("%s = %.6g, want %.6g ± %.3g (%d standard errors); off by %.1f", what, got, want, tol*se, tol, d/se)
	}
}

// nearFraction checks that count of n samples matches probability p.
func nearFraction(t *testing.T, what string, count int, p float64) {
	t.Helper()
	near(t, what, float64(count)/n, p, math.Sqrt(p*(1-p)/n))
}

func TestUniform(t *testing.T) {
	mustSpec := func(d Dist[int], err error) Dist[int] {
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for i, tc := range []struct {
		name     string
		sample   func(*rand.Rand) float64
		min, max float64 // the range drawn: for integers, the first and last integer
		integer  bool
	}{
		{"float64 [-3, 5]", sampler(NewUniform(-3.0, 5.0)), -3, 5, false},
		{"float64 [2, 2]", sampler(NewUniform(2.0, 2.0)), 2, 2, false},
		{"float32 [0, 1]", sampler(NewUniform[float32](0, 1)), 0, 1, false},
		{"int [1, 8]", sampler(NewUniform(1, 8)), 1, 8, true},
		{"int [-3, -3]", sampler(NewUniform(-3, -3)), -3, -3, true},
		{"int8 [-128, 127]", sampler(NewUniform[int8](math.MinInt8, math.MaxInt8)), -128, 127, true},
		{"uint8 [0, 255]", sampler(NewUniform[uint8](0, 255)), 0, 255, true},
		{"uint64 [10, 13]", sampler(NewUniform[uint64](10, 13)), 10, 13, true},
		{"int from spec [0.5, 3.5]", sampler(mustSpec(FromSpec[int](Spec{Kind: KindUniform, Min: 0.5, Max: 3.5}))), 1, 3, true},
		{"duration [1ms, 3ms]", sampler(NewUniform(time.Millisecond, 3*time.Millisecond)), 1e6, 3e6, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			xs := draw(uint64(i), tc.sample)
			counts := map[float64]int{}
			for _, x := range xs {
				if x < tc.min || x > tc.max || tc.integer && x != math.Trunc(x) {
					t.Fatalf("sample %v outside [%v, %v]", x, tc.min, tc.max)
				}
				counts[x]++
			}
			m := momentsOf(xs)
			w := tc.max - tc.min
			variance := w * w / 12
			if tc.integer {
				k := w + 1 // integers in the range
				variance = (k*k - 1) / 12
				if k <= 256 {
					// Both ends included, every integer equally likely.
					for x := tc.min; x <= tc.max; x++ {
						nearFraction(t, fmt.Sprintf("frequency of %v", x), counts[x], 1/k)
					}
				}
			}
			near(t, "mean", m.mean, (tc.min+tc.max)/2, m.seMean)
			if w == 0 {
				if m.variance != 0 {
					t.Errorf("variance of a single value = %v", m.variance)
				}
				return
			}
			near(t, "variance", m.variance, variance, m.seVariance)
		})
	}
}

// phi is the standard normal distribution function.
func phi(x float64) float64 {
	return math.Erfc(-x/math.Sqrt2) / 2
}

func TestGaussian(t *testing.T) {
	for i, tc := range []struct {
		name     string
		sample   func(*rand.Rand) float64
		mean, sd float64
		integer  bool
	}{
		{"float64 (10, 2)", sampler(NewGaussian(10.0, 2.0)), 10, 2, false},
		{"float32 (-5, 0.5)", sampler(NewGaussian[float32](-5, 0.5)), -5, 0.5, false},
		{"int (10, 2)", sampler(NewGaussian(10, 2)), 10, 2, true},
		{"duration (10ms, 2ms)", sampler(NewGaussian(10*time.Millisecond, 2*time.Millisecond)), 10e6, 2e6, true},
		{"float64 (3, 0)", sampler(NewGaussian(3.0, 0.0)), 3, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			xs := draw(uint64(100+i), tc.sample)
			for _, x := range xs {
				if tc.integer && x != math.Trunc(x) {
					t.Fatalf("sample %v of an integer type is not an integer", x)
				}
			}
			m := momentsOf(xs)
			variance := tc.sd * tc.sd
			if tc.integer && tc.sd < 100 {
				variance += 1.0 / 12 // the rounding (Sheppard's correction)
			}
			near(t, "mean", m.mean, tc.mean, m.seMean)
			if tc.sd == 0 {
				if m.variance != 0 {
					t.Errorf("variance with sd 0 = %v", m.variance)
				}
				return
			}
			near(t, "sd", math.Sqrt(m.variance), math.Sqrt(variance), m.seVariance/(2*math.Sqrt(variance)))
		})
	}
}

// TestGaussianRoundsAndClamps checks the conversion to integer types: to the nearest
// integer, and clamped to the type's range (at 0 for unsigned types, not wrapped).
func TestGaussianRoundsAndClamps(t *testing.T) {
	counts := map[uint8]int{}
	d := NewGaussian[uint8](1, 2)
	r := newRand(200)
	for range n {
		counts[d.Sample(r)]++
	}
	// A variate is 0 when below 0.5 and 1 when in [0.5, 1.5).
	nearFraction(t, "frequency of 0", counts[0], phi((0.5-1)/2))
	nearFraction(t, "frequency of 1", counts[1], phi((1.5-1)/2)-phi((0.5-1)/2))
	for v := range counts {
		if v > 20 {
			t.Errorf("sample %d: an unsigned type must clamp at 0, not wrap", v)
		}
	}

	high := NewGaussian[int8](120, 10)
	r = newRand(201)
	top := 0
	for range n {
		if high.Sample(r) == math.MaxInt8 {
			top++
		}
	}
	nearFraction(t, "frequency of 127", top, 1-phi((126.5-120)/10))

	rounded, err := FromSpec[int](Spec{Kind: KindGaussian, Mean: 10.4})
	if err != nil {
		t.Fatal(err)
	}
	if got := rounded.Sample(newRand(202)); got != 10 {
		t.Errorf("gaussian(mean 10.4, sd 0) as int = %d, want 10", got)
	}
}

// truncExp is the fitted curve of §4.1 iii on [a, b]: its distribution function and mean.
type truncExp struct{ a, b float64 }

func (e truncExp) lambda() float64 { return math.Log(100) / (e.b - e.a) }

func (e truncExp) cdf(x float64) float64 {
	l := e.lambda()
	return (1 - math.Exp(-l*(x-e.a))) / (1 - math.Exp(-l*(e.b-e.a)))
}

func (e truncExp) mean() float64 {
	l, w := e.lambda(), e.b-e.a
	return e.a + 1/l - w*math.Exp(-l*w)/(1-math.Exp(-l*w))
}

func TestExponential(t *testing.T) {
	for i, tc := range []struct {
		name   string
		sample func(*rand.Rand) float64
		a, b   float64
	}{
		{"float64 [2, 12]", sampler(NewExponential(2.0, 12.0)), 2, 12},
		{"float64 [-1e6, 1e6]", sampler(NewExponential(-1e6, 1e6)), -1e6, 1e6},
		{"float32 [1, 2]", sampler(NewExponential[float32](1, 2)), 1, 2},
		{"duration [1ms, 50ms]", sampler(NewExponential(time.Millisecond, 50*time.Millisecond)), 1e6, 50e6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := truncExp{tc.a, tc.b}
			xs := draw(uint64(300+i), tc.sample)
			var tenths [10]int
			for _, x := range xs {
				if x < tc.a || x > tc.b {
					t.Fatalf("sample %v outside [%v, %v]", x, tc.a, tc.b)
				}
				tenths[min(int((x-tc.a)/(tc.b-tc.a)*10), 9)]++
			}
			m := momentsOf(xs)
			near(t, "mean", m.mean, e.mean(), m.seMean)
			// Each tenth of the range against the curve; the first and last by their ratio,
			// 100^0.9 for a density whose end is 1/100 of its start.
			p := make([]float64, 10)
			for k := range p {
				w := (tc.b - tc.a) / 10
				p[k] = e.cdf(tc.a+float64(k+1)*w) - e.cdf(tc.a+float64(k)*w)
				nearFraction(t, fmt.Sprintf("frequency of tenth %d", k+1), tenths[k], p[k])
			}
			ratio := float64(tenths[0]) / float64(tenths[9])
			want := p[0] / p[9]
			if math.Abs(want-math.Pow(100, 0.9)) > 1e-6*want {
				t.Fatalf("curve ratio %v, want 100^0.9", want)
			}
			near(t, "first/last tenth", ratio, want, want*math.Sqrt(1/(p[0]*n)+1/(p[9]*n)))
		})
	}
}

// TestExponentialIntegers checks the curve at the integers: P(k) ∝ exp(−λ(k−lo)) with
// P(hi)/P(lo) = 1/100, both ends drawn.
func TestExponentialIntegers(t *testing.T) {
	for i, tc := range []struct {
		name   string
		sample func(*rand.Rand) float64
		lo, hi float64
	}{
		{"int [0, 9]", sampler(NewExponential(0, 9)), 0, 9},
		{"uint8 [250, 255]", sampler(NewExponential[uint8](250, 255)), 250, 255},
		{"int64 [-20, 20]", sampler(NewExponential[int64](-20, 20)), -20, 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			counts := map[float64]int{}
			for _, x := range draw(uint64(400+i), tc.sample) {
				if x < tc.lo || x > tc.hi || x != math.Trunc(x) {
					t.Fatalf("sample %v is not an integer of [%v, %v]", x, tc.lo, tc.hi)
				}
				counts[x]++
			}
			lambda := math.Log(100) / (tc.hi - tc.lo)
			var total float64
			for k := tc.lo; k <= tc.hi; k++ {
				total += math.Exp(-lambda * (k - tc.lo))
			}
			for k := tc.lo; k <= tc.hi; k++ {
				nearFraction(t, fmt.Sprintf("frequency of %v", k), counts[k], math.Exp(-lambda*(k-tc.lo))/total)
			}
			pLo := 1 / total
			ratio := float64(counts[tc.hi]) / float64(counts[tc.lo])
			near(t, "P(hi)/P(lo)", ratio, 0.01, 0.01*math.Sqrt(1/(0.01*pLo*n)+1/(pLo*n)))
		})
	}
	// A range of one integer.
	d, err := FromSpec[int](Spec{Kind: KindExponential, Min: 0.5, Max: 1.5})
	if err != nil {
		t.Fatal(err)
	}
	r := newRand(410)
	for range 100 {
		if got := d.Sample(r); got != 1 {
			t.Fatalf("exponential[0.5, 1.5] as int = %d, want 1", got)
		}
	}
}

func TestWeighted(t *testing.T) {
	t.Run("float64", func(t *testing.T) {
		ranges := []Range[float64]{{1, 10, 0.6}, {100, 1000, 0.3}, {5000, 6000, 0}, {2000, 3000, 0.1}}
		counts := make([]int, len(ranges))
		var second []float64
		for _, x := range draw(500, sampler(NewWeighted(ranges...))) {
			i := 0
			for i < len(ranges) && !(x >= ranges[i].Min && x <= ranges[i].Max) {
				i++
			}
			if i == len(ranges) {
				t.Fatalf("sample %v in no interval", x)
			}
			counts[i]++
			if i == 1 {
				second = append(second, x)
			}
		}
		for i, r := range ranges {
			nearFraction(t, fmt.Sprintf("frequency of [%v, %v]", r.Min, r.Max), counts[i], r.P)
		}
		if counts[2] != 0 {
			t.Errorf("the interval of p 0 was chosen %d times", counts[2])
		}
		// Uniform within the interval.
		m := momentsOf(second)
		near(t, "mean within [100, 1000]", m.mean, 550, m.seMean)
		near(t, "variance within [100, 1000]", m.variance, 900*900/12.0, m.seVariance)
	})
	t.Run("int", func(t *testing.T) {
		d := NewWeighted(Range[int]{1, 3, 0.5}, Range[int]{10, 10, 0.25}, Range[int]{7, 7, 0}, Range[int]{20, 21, 0.25})
		counts := map[float64]int{}
		for _, x := range draw(501, sampler(d)) {
			counts[x]++
		}
		want := map[float64]float64{1: 0.5 / 3, 2: 0.5 / 3, 3: 0.5 / 3, 10: 0.25, 20: 0.125, 21: 0.125}
		for x, c := range counts {
			if _, ok := want[x]; !ok {
				t.Errorf("sample %v drawn %d times, in no interval of p > 0", x, c)
			}
		}
		for x, p := range want {
			nearFraction(t, fmt.Sprintf("frequency of %v", x), counts[x], p)
		}
	})
	t.Run("duration", func(t *testing.T) {
		d := NewWeighted(Range[time.Duration]{time.Millisecond, 2 * time.Millisecond, 0.75}, Range[time.Duration]{time.Second, time.Second, 0.25})
		r := newRand(502)
		second := 0
		for range n {
			switch x := d.Sample(r); {
			case x == time.Second:
				second++
			case x < time.Millisecond || x > 2*time.Millisecond:
				t.Fatalf("sample %v in no interval", x)
			}
		}
		nearFraction(t, "frequency of 1s", second, 0.25)
	})
}

func TestSampleIsDeterministic(t *testing.T) {
	for _, d := range []Dist[float64]{
		NewUniform(0.0, 1.0), NewGaussian(0.0, 1.0), NewExponential(0.0, 1.0),
		NewWeighted(Range[float64]{0, 1, 0.5}, Range[float64]{2, 3, 0.5}),
	} {
		a, b := newRand(7), newRand(7)
		for range 100 {
			if x, y := d.Sample(a), d.Sample(b); x != y {
				t.Fatalf("%v: the same seed gave %v and %v", d, x, y)
			}
		}
	}
}

func TestValidate(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, tc := range []struct {
		spec Spec
		want string // "" when valid
	}{
		{Spec{Kind: KindUniform, Min: 1, Max: 8}, ""},
		{Spec{Kind: KindUniform, Min: 3, Max: 3}, ""},
		{Spec{Kind: KindUniform, Min: 8, Max: 1}, "min 8 > max 1"},
		{Spec{Kind: KindUniform, Min: nan, Max: 1}, "min is NaN, want a finite number"},
		{Spec{Kind: KindUniform, Min: 0, Max: inf}, "max is +Inf, want a finite number"},
		{Spec{Kind: KindUniform, Min: -math.MaxFloat64, Max: math.MaxFloat64}, "wider than float64 can hold"},
		{Spec{Kind: KindUniform, Min: 1, Max: 8, Mean: 3}, "a uniform distribution has no mean (it takes min and max), got 3"},
		{Spec{Kind: KindUniform, Max: 1, Intervals: []Interval{{0, 1, 1}}}, "a uniform distribution has no intervals"},
		{Spec{Kind: KindExponential, Min: 1, Max: 2}, ""},
		{Spec{Kind: KindExponential, Min: 2, Max: 2}, "min 2 = max 2: an exponential distribution needs min < max"},
		{Spec{Kind: KindExponential, Min: 3, Max: 2}, "min 3 > max 2"},
		{Spec{Kind: KindExponential, Min: 1, Max: 2, SD: 1}, "an exponential distribution has no sd"},
		{Spec{Kind: KindGaussian, Mean: 10, SD: 2}, ""},
		{Spec{Kind: KindGaussian, Mean: -1}, ""},
		{Spec{Kind: KindGaussian, Mean: 10, SD: -2}, "sd -2 < 0"},
		{Spec{Kind: KindGaussian, Mean: inf, SD: 2}, "mean is +Inf"},
		{Spec{Kind: KindGaussian, SD: nan}, "sd is NaN"},
		{Spec{Kind: KindGaussian, Mean: 1, Min: 1}, "a gaussian distribution has no min (it takes mean and sd), got 1"},
		{Spec{Kind: KindWeighted, Intervals: []Interval{{1, 10, 0.9}, {100, 1000, 0.1}}}, ""},
		{Spec{Kind: KindWeighted, Intervals: []Interval{{1, 1, 1}, {5, 2, 0}}}, "intervals[1]: min 5 > max 2"},
		{Spec{Kind: KindWeighted, Intervals: []Interval{{1, 10, 0.9}, {100, 1000, 0.05}}}, "probabilities sum to 0.95, want 1"},
		{Spec{Kind: KindWeighted, Intervals: []Interval{{1, 10, 0.5}, {100, 1000, 0.5 + 2e-9}}}, "probabilities sum to 1.000000002, want 1"},
		{Spec{Kind: KindWeighted, Intervals: []Interval{{1, 10, 0.5}, {100, 1000, 0.5 + 5e-10}}}, ""},
		{Spec{Kind: KindWeighted, Intervals: []Interval{{1, 10, 1.5}, {100, 1000, -0.5}}}, "intervals[0]: p 1.5 outside [0, 1]"},
		{Spec{Kind: KindWeighted, Intervals: []Interval{{1, 10, nan}}}, "intervals[0]: p NaN outside [0, 1]"},
		{Spec{Kind: KindWeighted, Intervals: []Interval{{nan, 10, 1}}}, "intervals[0]: min is NaN"},
		{Spec{Kind: KindWeighted}, "no intervals"},
		{Spec{Kind: KindWeighted, Min: 1, Intervals: []Interval{{1, 1, 1}}}, "a weighted distribution has no min (it takes intervals)"},
		{Spec{}, "no kind: want uniform, gaussian, exponential or weighted"},
		{Spec{Kind: "poisson"}, `unknown kind "poisson": want uniform, gaussian, exponential or weighted`},
	} {
		err := tc.spec.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v: Validate: %v", tc.spec, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%v: Validate = %v, want %q", tc.spec, err, tc.want)
		}
	}
}

func TestConstructorsPanic(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func()
		want string // the panic; "" when none
	}{
		{"uniform", func() { NewUniform(1, 8) }, ""},
		{"uniform min > max", func() { NewUniform(8, 1) }, "random.NewUniform: min 8 > max 1"},
		{"uniform NaN", func() { NewUniform(math.NaN(), 1) }, "random.NewUniform: min is NaN, want a finite number"},
		{"uniform durations", func() { NewUniform(time.Second, time.Millisecond) }, "random.NewUniform: min 1s > max 1ms"},
		{"gaussian sd < 0", func() { NewGaussian(1.0, -0.5) }, "random.NewGaussian: sd -0.5 < 0"},
		{"exponential min = max", func() { NewExponential[uint8](4, 4) }, "random.NewExponential: min 4 = max 4: an exponential distribution needs min < max"},
		{"exponential min > max", func() { NewExponential(5.5, 1.0) }, "random.NewExponential: min 5.5 > max 1"},
		{"weighted none", func() { NewWeighted[int]() }, "random.NewWeighted: no intervals"},
		{"weighted sum", func() { NewWeighted(Range[int]{1, 2, 0.5}) }, "random.NewWeighted: probabilities sum to 0.5, want 1"},
		{"weighted min > max", func() { NewWeighted(Range[int]{3, 2, 1}) }, "random.NewWeighted: intervals[0]: min 3 > max 2"},
		{"weighted p", func() { NewWeighted(Range[int]{1, 2, 2}) }, "random.NewWeighted: intervals[0]: p 2 outside [0, 1]"},
		{"zero Dist", func() { Dist[int]{}.Sample(newRand(1)) }, "random: Sample of the zero Dist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				got, _ := r.(string)
				switch {
				case tc.want == "" && r != nil:
					t.Errorf("panic %v", r)
				case tc.want != "" && !strings.HasPrefix(got, tc.want):
					t.Errorf("panic %#v, want %q", r, tc.want)
				}
			}()
			tc.f()
		})
	}
}

// fromSpec calls FromSpec with the type named typ.
func fromSpec(typ string, s Spec) error {
	var err error
	switch typ {
	case "int":
		_, err = FromSpec[int](s)
	case "int64":
		_, err = FromSpec[int64](s)
	case "uint":
		_, err = FromSpec[uint](s)
	case "uint8":
		_, err = FromSpec[uint8](s)
	case "float32":
		_, err = FromSpec[float32](s)
	case "float64":
		_, err = FromSpec[float64](s)
	case "time.Duration":
		_, err = FromSpec[time.Duration](s)
	default:
		panic("fromSpec: no type " + typ)
	}
	return err
}

func TestFromSpec(t *testing.T) {
	for _, tc := range []struct {
		typ  string
		spec Spec
		want string // "" when valid
	}{
		{"int", Spec{Kind: KindUniform, Min: 1, Max: 8}, ""},
		{"int", Spec{Kind: KindUniform, Min: 8, Max: 1}, "random.FromSpec[int]: uniform[8, 1]: min 8 > max 1"},
		{"int", Spec{Kind: KindUniform, Min: 1.2, Max: 1.8}, "random.FromSpec[int]: uniform[1.2, 1.8]: [1.2, 1.8] holds no integer, and int is an integer type"},
		{"float64", Spec{Kind: KindUniform, Min: 1.2, Max: 1.8}, ""},
		{"uint8", Spec{Kind: KindUniform, Min: 0, Max: 1000}, "random.FromSpec[uint8]: uniform[0, 1000]: max 1000 is outside the range of uint8 [0, 255]"},
		{"uint8", Spec{Kind: KindExponential, Min: 0, Max: 255}, ""},
		{"uint8", Spec{Kind: KindExponential, Min: -1, Max: 255}, "min -1 is outside the range of uint8 [0, 255]"},
		{"uint", Spec{Kind: KindGaussian, Mean: -5, SD: 1}, "random.FromSpec[uint]: gaussian(mean -5, sd 1): mean -5 is outside the range of uint"},
		{"uint", Spec{Kind: KindGaussian, Mean: 0, SD: 1}, ""},
		{"int64", Spec{Kind: KindUniform, Min: -1 << 63, Max: 1<<63 - 1024}, ""},
		{"int64", Spec{Kind: KindUniform, Max: 1 << 63}, "max 9.223372036854776e+18 is outside the range of int64"},
		{"time.Duration", Spec{Kind: KindExponential, Min: 1e6, Max: 5e7}, ""},
		{"time.Duration", Spec{Kind: KindGaussian, Mean: 1, SD: -1}, "random.FromSpec[time.Duration]: gaussian(mean 1, sd -1): sd -1 < 0"},
		{"float32", Spec{Kind: KindUniform, Max: 1e39}, "random.FromSpec[float32]: uniform[0, 1e+39]: max 1e+39 is outside the range of float32"},
		{"int", Spec{Kind: KindWeighted, Intervals: []Interval{{1, 2, 0.5}, {2.2, 2.4, 0.5}}}, "intervals[1]: [2.2, 2.4] holds no integer"},
		{"int", Spec{Kind: KindWeighted, Intervals: []Interval{{1, 2, 1}, {2.2, 2.4, 0}}}, ""}, // never drawn
	} {
		err := fromSpec(tc.typ, tc.spec)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("FromSpec[%s](%v): %v", tc.typ, tc.spec, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("FromSpec[%s](%v) = %v, want %q", tc.typ, tc.spec, err, tc.want)
		}
	}
}

func TestFromSpecCopies(t *testing.T) {
	s := Spec{Kind: KindWeighted, Intervals: []Interval{{1, 2, 0.5}, {3, 4, 0.5}}}
	d, err := FromSpec[float64](s)
	if err != nil {
		t.Fatal(err)
	}
	s.Intervals[0].P = 0
	got := d.Spec()
	if got.Intervals[0].P != 0.5 {
		t.Errorf("the Dist shares the intervals of the Spec it was made from")
	}
	got.Intervals[1].P = 0
	if d.Spec().Intervals[1].P != 0.5 {
		t.Errorf("Spec returns the Dist's own intervals")
	}
}

func TestString(t *testing.T) {
	for _, tc := range []struct {
		got  fmt.Stringer
		want string
	}{
		{Spec{Kind: KindUniform, Min: 1, Max: 8}, "uniform[1, 8]"},
		{Spec{Kind: KindGaussian, Mean: 10, SD: 2}, "gaussian(mean 10, sd 2)"},
		{Spec{Kind: KindExponential, Min: 1e6, Max: 5e7}, "exponential[1e+06, 5e+07]"},
		{Spec{Kind: KindWeighted, Intervals: []Interval{{1, 10, 0.9}, {100, 1000, 0.1}}}, "weighted{[1, 10] 0.9; [100, 1000] 0.1}"},
		{Spec{Kind: "poisson", Mean: 3}, `"poisson"(min 0, max 0, mean 3, sd 0, 0 intervals)`},
		{NewUniform(1, 8), "uniform[1, 8]"},
		{NewUniform[float32](0.1, 0.5), "uniform[0.1, 0.5]"},
		{NewExponential(time.Millisecond, 50*time.Millisecond), "exponential[1ms, 50ms]"},
		{NewGaussian(10*time.Millisecond, 2*time.Millisecond), "gaussian(mean 10ms, sd 2ms)"},
		{NewWeighted(Range[uint8]{1, 10, 0.9}, Range[uint8]{100, 200, 0.1}), "weighted{[1, 10] 0.9; [100, 200] 0.1}"},
	} {
		if s := tc.got.String(); s != tc.want {
			t.Errorf("String = %q, want %q", s, tc.want)
		}
	}
}
