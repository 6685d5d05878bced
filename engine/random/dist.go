package random

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
)

// Number is what a distribution yields: integers, floats and types such as time.Duration
// whose underlying type is one of them.
type Number interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 |
		~float32 | ~float64
}

// Kind names one of the four distributions of §4.1.
type Kind string

// The distributions of §4.1 i–iv.
const (
	KindUniform     Kind = "uniform"     // §4.1 i: homogeneous over [Min, Max]
	KindGaussian    Kind = "gaussian"    // §4.1 ii: the Gaussian curve of Mean and SD
	KindExponential Kind = "exponential" // §4.1 iii: an exponentially decreasing curve from Min to Max
	KindWeighted    Kind = "weighted"    // §4.1 iv: intervals chosen by probability, homogeneous within
)

// wantKinds lists the kinds for error messages.
const wantKinds = "uniform, gaussian, exponential or weighted"

// Interval is one interval of the weighted distribution (§4.1 iv): Interval_i = {Min_i,
// Max_i, P_i}. It is chosen with probability P and then sampled uniformly over [Min, Max].
type Interval struct {
	Min, Max, P float64
}

// Spec is the untyped description of a distribution, as written in code or in the
// configuration file. Which fields a kind uses:
//
//	uniform      Min, Max   (Min <= Max)
//	exponential  Min, Max   (Min < Max)
//	gaussian     Mean, SD   (SD >= 0)
//	weighted     Intervals  (at least one; each Min <= Max and P in [0, 1]; the P sum to 1)
//
// The fields a kind does not use must be zero. Parameters are float64, so integers beyond
// 2^53 in magnitude are approximate; durations are in nanoseconds.
type Spec struct {
	Kind      Kind
	Min, Max  float64    // uniform, exponential
	Mean, SD  float64    // gaussian
	Intervals []Interval // weighted
}

// sumTolerance is how far the probabilities of a weighted distribution may sum from 1.
const sumTolerance = 1e-9

// Validate reports whether s describes a distribution: a known kind, finite parameters,
// those of the kind in order and the others zero. Its error names the offending parameter,
// e.g. "min 8 > max 1" or "probabilities sum to 0.95, want 1"; callers add where the Spec
// came from.
func (s Spec) Validate() error {
	return s.validate(formatFloat)
}

// validate is Validate with the numbers of messages formatted by f.
func (s Spec) validate(f func(float64) string) error {
	switch s.Kind {
	case KindUniform, KindExponential:
		if err := s.unused(f, "mean", "sd", "intervals"); err != nil {
			return err
		}
		if err := finite(f, "min", s.Min, "max", s.Max); err != nil {
			return err
		}
		if s.Min > s.Max {
			return fmt.Errorf("min %s > max %s", f(s.Min), f(s.Max))
		}
		if s.Kind == KindExponential && s.Min == s.Max {
			return fmt.Errorf("min %s = max %s: %s needs min < max", f(s.Min), f(s.Max), s.Kind.noun())
		}
		if math.IsInf(s.Max-s.Min, 0) {
			return fmt.Errorf("[min %s, max %s] is wider than float64 can hold", f(s.Min), f(s.Max))
		}
	case KindGaussian:
		if err := s.unused(f, "min", "max", "intervals"); err != nil {
			return err
		}
		if err := finite(f, "mean", s.Mean, "sd", s.SD); err != nil {
			return err
		}
		if s.SD < 0 {
			return fmt.Errorf("sd %s < 0", f(s.SD))
		}
	case KindWeighted:
		if err := s.unused(f, "min", "max", "mean", "sd"); err != nil {
			return err
		}
		if len(s.Intervals) == 0 {
			return errors.New("no intervals: a weighted distribution needs at least one")
		}
		sum := 0.0
		for i, iv := range s.Intervals {
			if err := finite(f, "min", iv.Min, "max", iv.Max); err != nil {
				return fmt.Errorf("intervals[%d]: %w", i, err)
			}
			if iv.Min > iv.Max {
				return fmt.Errorf("intervals[%d]: min %s > max %s", i, f(iv.Min), f(iv.Max))
			}
			if !(iv.P >= 0 && iv.P <= 1) { // also NaN
				return fmt.Errorf("intervals[%d]: p %s outside [0, 1]", i, formatFloat(iv.P))
			}
			if math.IsInf(iv.Max-iv.Min, 0) {
				return fmt.Errorf("intervals[%d]: [min %s, max %s] is wider than float64 can hold", i, f(iv.Min), f(iv.Max))
			}
			sum += iv.P
		}
		if math.Abs(sum-1) > sumTolerance {
			return fmt.Errorf("probabilities sum to %s, want 1", strconv.FormatFloat(sum, 'g', 12, 64))
		}
	case "":
		return errors.New("no kind: want " + wantKinds)
	default:
		return fmt.Errorf("unknown kind %q: want %s", string(s.Kind), wantKinds)
	}
	return nil
}

// unused returns an error if one of the named fields, which s's kind does not use, is set.
func (s Spec) unused(f func(float64) string, names ...string) error {
	for _, name := range names {
		var v float64
		switch name {
		case "min":
			v = s.Min
		case "max":
			v = s.Max
		case "mean":
			v = s.Mean
		case "sd":
			v = s.SD
		case "intervals":
			if len(s.Intervals) > 0 {
				return fmt.Errorf("%s has no intervals (it takes %s)", s.Kind.noun(), params(s.Kind))
			}
			continue
		}
		if v != 0 {
			return fmt.Errorf("%s has no %s (it takes %s), got %s", s.Kind.noun(), name, params(s.Kind), f(v))
		}
	}
	return nil
}

// noun names a distribution of kind k: "a uniform distribution", "an exponential
// distribution".
func (k Kind) noun() string {
	if k == KindExponential {
		return "an exponential distribution"
	}
	return "a " + string(k) + " distribution"
}

// params describes the parameters of kind k.
func params(k Kind) string {
	switch k {
	case KindUniform, KindExponential:
		return "min and max"
	case KindGaussian:
		return "mean and sd"
	case KindWeighted:
		return "intervals"
	}
	return "no parameters"
}

// finite returns an error naming the first of the (name, value) pairs that is NaN or ±Inf.
func finite(f func(float64) string, pairs ...any) error {
	for i := 0; i < len(pairs); i += 2 {
		if v := pairs[i+1].(float64); math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s is %s, want a finite number", pairs[i], formatFloat(v))
		}
	}
	return nil
}

// formatFloat formats x as %v does.
func formatFloat(x float64) string {
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// String describes s: "uniform[1, 8]", "gaussian(mean 10, sd 2)", "exponential[1e+06,
// 5e+07]", "weighted{[1, 10] 0.9; [100, 1000] 0.1}".
func (s Spec) String() string {
	return s.format(formatFloat)
}

// format is String with the parameters formatted by f (probabilities are always float64).
func (s Spec) format(f func(float64) string) string {
	switch s.Kind {
	case KindUniform, KindExponential:
		return fmt.Sprintf("%s[%s, %s]", s.Kind, f(s.Min), f(s.Max))
	case KindGaussian:
		return fmt.Sprintf("gaussian(mean %s, sd %s)", f(s.Mean), f(s.SD))
	case KindWeighted:
		var b strings.Builder
		b.WriteString("weighted{")
		for i, iv := range s.Intervals {
			if i > 0 {
				b.WriteString("; ")
			}
			fmt.Fprintf(&b, "[%s, %s] %s", f(iv.Min), f(iv.Max), formatFloat(iv.P))
		}
		b.WriteString("}")
		return b.String()
	}
	return fmt.Sprintf("%q(min %s, max %s, mean %s, sd %s, %d intervals)",
		string(s.Kind), f(s.Min), f(s.Max), f(s.Mean), f(s.SD), len(s.Intervals))
}

// clone returns s with its own copy of the intervals.
func (s Spec) clone() Spec {
	if s.Intervals != nil {
		s.Intervals = append([]Interval(nil), s.Intervals...)
	}
	return s
}

// ln100 is λ·(Max−Min) of the exponential fit: the density at Max is 1/100 of that at Min.
var ln100 = math.Log(100)

// Sample draws one value of the distribution from r. With integer set (the caller's type is
// an integer type) the value is a whole number:
//
//   - uniform: Min + u·(Max−Min) for u uniform in [0, 1); for integers every integer in
//     [⌈Min⌉, ⌊Max⌋] is equally likely, both ends included.
//   - gaussian: r.NormFloat64()·SD + Mean; for integers rounded to the nearest.
//   - exponential: see below.
//   - weighted (§4.1 iv): interval i with probability P_i (never one with P_i = 0), then
//     uniform within [Min_i, Max_i] as above.
//
// The exponential distribution fits "an exponentially decreasing curve from Min to Max"
// (§4.1 iii) as the truncated exponential density f(x) ∝ exp(−λ(x−Min)) on [Min, Max], with
// λ = ln(100)/(Max−Min): the fit chosen here is that the density at Max is 1/100 of the
// density at Min, whatever the width of the range. It is sampled by the inverse of its
// distribution function, x = Min − ln(1 − u(1 − e^{−λ(Max−Min)}))/λ, which lies in [Min,
// Max]. For integers it is the same curve at the integers k of [lo, hi] = [⌈Min⌉, ⌊Max⌋]:
// P(k) ∝ exp(−λ(k−lo)) with λ = ln(100)/(hi−lo), so that both ends can be drawn and
// P(hi)/P(lo) = 1/100; it is ⌊x⌋ of the continuous curve of that λ on [lo, hi+1).
//
// If an integer is asked for and a range holds none (uniform[1.2, 1.8]), Sample rounds a
// continuous sample to the nearest integer; FromSpec rejects such specs for integer types.
// s must be valid (see Validate); Sample panics if its kind is unknown.
func (s Spec) Sample(r *rand.Rand, integer bool) float64 {
	switch s.Kind {
	case KindUniform:
		return uniform(r, s.Min, s.Max, integer)
	case KindGaussian:
		x := r.NormFloat64()*s.SD + s.Mean
		if integer {
			x = math.Round(x)
		}
		return x
	case KindExponential:
		return exponential(r, s.Min, s.Max, integer)
	case KindWeighted:
		iv := s.pick(r)
		return uniform(r, iv.Min, iv.Max, integer)
	}
	panic(fmt.Sprintf("random: Spec.Sample of %s: %v", s, s.Validate()))
}

// pick chooses an interval of a weighted distribution with probability P_i (§4.1 iv).
func (s Spec) pick(r *rand.Rand) Interval {
	u := r.Float64()
	cum, last := 0.0, -1
	for i, iv := range s.Intervals {
		if iv.P <= 0 {
			continue
		}
		last = i
		if cum += iv.P; u < cum {
			return iv
		}
	}
	if last < 0 {
		panic(fmt.Sprintf("random: Spec.Sample of %s: no interval has a probability above 0", s))
	}
	return s.Intervals[last] // u beyond the sum, which may fall short of 1 by sumTolerance
}

// maxExact is the largest count of integers that uniform draws exactly: beyond 2^53, float64
// does not hold every integer anyway.
const maxExact = 1 << 53

// uniform draws from [min, max] (§4.1 i); with integer, an integer of [⌈min⌉, ⌊max⌋].
func uniform(r *rand.Rand, min, max float64, integer bool) float64 {
	if !integer {
		return math.Min(min+r.Float64()*(max-min), max)
	}
	lo, hi := math.Ceil(min), math.Floor(max)
	switch n := hi - lo + 1; {
	case lo > hi: // no integer in [min, max]
		return math.Round(min + r.Float64()*(max-min))
	case n <= maxExact:
		return lo + float64(r.Uint64N(uint64(n)))
	default:
		return math.Min(math.Floor(lo+r.Float64()*n), hi)
	}
}

// exponential draws from the truncated exponential fitted from min to max (§4.1 iii); see
// Spec.Sample.
func exponential(r *rand.Rand, min, max float64, integer bool) float64 {
	if !integer {
		w := max - min
		lambda := ln100 / w
		x := min - math.Log1p(-r.Float64()*-math.Expm1(-lambda*w))/lambda
		return math.Max(min, math.Min(x, max))
	}
	lo, hi := math.Ceil(min), math.Floor(max)
	switch {
	case lo > hi: // no integer in [min, max]
		return math.Round(exponential(r, min, max, false))
	case lo == hi:
		return lo
	}
	n := hi - lo + 1
	lambda := ln100 / (hi - lo)
	k := math.Floor(-math.Log1p(-r.Float64()*-math.Expm1(-lambda*n)) / lambda)
	return math.Max(lo, math.Min(lo+k, hi))
}

// Dist is a distribution that yields values of type T. Make one with NewUniform,
// NewGaussian, NewExponential, NewWeighted or FromSpec; the zero Dist is not usable. A Dist
// is immutable and may be shared by goroutines (each with its own *rand.Rand).
//
// Samples are drawn as float64 by Spec.Sample, as whole numbers when T is an integer type,
// and converted to T: integers are clamped to T's range — so a Gaussian of an unsigned type
// yields 0 for every variate below 0.5, and one of int8 127 for every variate from 126.5 —
// and float32 is converted from float64.
type Dist[T Number] struct {
	spec Spec
	t    numType[T]
}

// numType describes the type T of a Dist.
type numType[T Number] struct {
	integer bool
	lo, hi  T // T's range, for integer types
}

// typeOf returns the numType of T.
func typeOf[T Number]() numType[T] {
	switch t := reflect.TypeFor[T](); t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		b := t.Bits()
		return numType[T]{integer: true, lo: T(int64(-1) << (b - 1)), hi: T(int64(1)<<(b-1) - 1)}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return numType[T]{integer: true, lo: 0, hi: T(^uint64(0) >> (64 - t.Bits()))}
	}
	return numType[T]{}
}

// convert turns a sample into a T, clamping integers to T's range.
func (t numType[T]) convert(x float64) T {
	switch {
	case !t.integer:
		return T(x)
	case math.IsNaN(x):
		return 0
	case x <= float64(t.lo):
		return t.lo
	case x >= float64(t.hi): // for 64 bits float64(hi) is 2^63 or 2^64, outside the type
		return t.hi
	}
	return T(x)
}

// holds reports whether x is in [lo, hi+1) for the integer type T, whose hi+1 float64
// holds exactly (2^63 and 2^64 for 64 bits, where float64(hi) rounds up to that).
func (t numType[T]) holds(x float64) bool {
	return x >= float64(t.lo) && x < float64(t.hi)+1
}

// format formats a parameter as a T when it is one (1ms for a time.Duration), else as a
// float64.
func (t numType[T]) format(x float64) string {
	exact := float64(T(x)) == x
	if t.integer {
		exact = x == math.Trunc(x) && t.holds(x)
	}
	if exact {
		return fmt.Sprint(T(x))
	}
	return formatFloat(x)
}

// typeName names T in error messages.
func typeName[T Number]() string {
	return reflect.TypeFor[T]().String()
}

// newDist returns the Dist of s, made by the constructor fn, panicking with a message
// prefixed by fn if s is invalid.
func newDist[T Number](fn string, s Spec) Dist[T] {
	d := Dist[T]{spec: s, t: typeOf[T]()}
	if err := s.validate(d.t.format); err != nil {
		panic(fn + ": " + err.Error())
	}
	return d
}

// NewUniform returns the uniform distribution over [min, max] (§4.1 i); for integer types
// both ends are drawn. It panics if min > max.
func NewUniform[T Number](min, max T) Dist[T] {
	return newDist[T]("random.NewUniform", Spec{Kind: KindUniform, Min: float64(min), Max: float64(max)})
}

// NewGaussian returns the Gaussian distribution of mean and standard deviation sd (§4.1 ii);
// for integer types samples are rounded to the nearest and clamped to the type's range (see
// Dist). It panics if sd < 0.
func NewGaussian[T Number](mean, sd T) Dist[T] {
	return newDist[T]("random.NewGaussian", Spec{Kind: KindGaussian, Mean: float64(mean), SD: float64(sd)})
}

// NewExponential returns the exponential distribution decreasing from min to max (§4.1
// iii), whose density at max is 1/100 of that at min (see Spec.Sample). It panics unless
// min < max.
func NewExponential[T Number](min, max T) Dist[T] {
	return newDist[T]("random.NewExponential", Spec{Kind: KindExponential, Min: float64(min), Max: float64(max)})
}

// Range is one interval of a weighted distribution of T: [Min, Max] chosen with probability
// P (§4.1 iv).
type Range[T Number] struct {
	Min, Max T
	P        float64
}

// NewWeighted returns the weighted distribution of the ranges (§4.1 iv): range i is chosen
// with probability P_i, then sampled uniformly (for integer types both ends included). A
// weighted distribution approximates any other by partitioning its range finely enough
// (Eq. 1). It panics unless there is a range, each has Min <= Max and P in [0, 1], and the
// probabilities sum to 1 (within 1e-9).
func NewWeighted[T Number](ranges ...Range[T]) Dist[T] {
	s := Spec{Kind: KindWeighted, Intervals: make([]Interval, len(ranges))}
	for i, r := range ranges {
		s.Intervals[i] = Interval{Min: float64(r.Min), Max: float64(r.Max), P: r.P}
	}
	return newDist[T]("random.NewWeighted", s)
}

// FromSpec returns the Dist of s, as read from the configuration file. Besides Validate it
// checks s against T: for an integer type, every range that can be drawn must hold an
// integer and lie within T's range, as must a Gaussian's mean; for float32, the parameters
// must be within float32's range.
func FromSpec[T Number](s Spec) (Dist[T], error) {
	if err := s.Validate(); err != nil {
		return Dist[T]{}, fmt.Errorf("random.FromSpec[%s]: %s: %w", typeName[T](), s, err)
	}
	d := Dist[T]{spec: s.clone(), t: typeOf[T]()}
	if err := d.fits(); err != nil {
		return Dist[T]{}, fmt.Errorf("random.FromSpec[%s]: %s: %w", typeName[T](), s, err)
	}
	return d, nil
}

// fits checks d's spec against T (see FromSpec).
func (d Dist[T]) fits() error {
	s := d.spec
	switch s.Kind {
	case KindUniform, KindExponential:
		return d.fitsRange("", s.Min, s.Max)
	case KindGaussian:
		return d.fitsValue("mean", s.Mean)
	case KindWeighted:
		for i, iv := range s.Intervals {
			if iv.P == 0 {
				continue // never drawn
			}
			if err := d.fitsRange(fmt.Sprintf("intervals[%d]: ", i), iv.Min, iv.Max); err != nil {
				return err
			}
		}
	}
	return nil
}

// fitsRange checks that [min, max] holds a T (see FromSpec); prefix starts its message.
func (d Dist[T]) fitsRange(prefix string, min, max float64) error {
	if d.t.integer && math.Ceil(min) > math.Floor(max) {
		return fmt.Errorf("%s[%s, %s] holds no integer, and %s is an integer type", prefix, formatFloat(min), formatFloat(max), typeName[T]())
	}
	if err := d.fitsValue("min", min); err != nil {
		return errors.New(prefix + err.Error())
	}
	if err := d.fitsValue("max", max); err != nil {
		return errors.New(prefix + err.Error())
	}
	return nil
}

// fitsValue checks that the parameter name, x, is within T's range.
func (d Dist[T]) fitsValue(name string, x float64) error {
	switch {
	case d.t.integer:
		if !d.t.holds(x) {
			return fmt.Errorf("%s %s is outside the range of %s [%v, %v]", name, formatFloat(x), typeName[T](), d.t.lo, d.t.hi)
		}
	case reflect.TypeFor[T]().Kind() == reflect.Float32:
		if math.Abs(x) > math.MaxFloat32 {
			return fmt.Errorf("%s %s is outside the range of %s", name, formatFloat(x), typeName[T]())
		}
	}
	return nil
}

// Spec returns the description of d.
func (d Dist[T]) Spec() Spec {
	return d.spec.clone()
}

// Sample draws one value of d from r (see Spec.Sample and Dist). It panics for the zero
// Dist.
func (d Dist[T]) Sample(r *rand.Rand) T {
	if d.spec.Kind == "" {
		panic("random: Sample of the zero Dist: make one with NewUniform, NewGaussian, NewExponential, NewWeighted or FromSpec")
	}
	return d.t.convert(d.spec.Sample(r, d.t.integer))
}

// String describes d as Spec.String does, with parameters formatted as T where they are
// values of T: "exponential[1ms, 50ms]" for a time.Duration.
func (d Dist[T]) String() string {
	return d.spec.format(d.t.format)
}
