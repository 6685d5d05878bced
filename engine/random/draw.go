package random

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
)

// TB is the part of a test handle Draw needs: *testing.T and *testing.B have it, and so does
// the engine's per-schedule test, which an instrumented test's *testing.T stands for.
type TB interface {
	Name() string
	Helper()
	Fatalf(format string, args ...any)
}

// drawer is a test handle that supplies the values itself: under interleave test, the
// execution's data source (a replay draws the same values); under interleave stress, the
// iteration's seeded source, recorded so that -repro re-runs the iteration with them.
type drawer interface {
	Draw(name string, sample func(*rand.Rand) float64) float64
}

// resolveHandle, when set, returns the handle that stands for t in the calling goroutine:
// package harness sets it, so that an instrumented test's own *testing.T draws from the
// execution's (or the stress iteration's) source, as its per-schedule test does.
var resolveHandle func(TB) TB

// ResolveHandles sets the function Draw asks for the handle that stands for a test's t (see
// resolveHandle). It is package harness's to call, once, as it is initialized.
func ResolveHandles(f func(TB) TB) { resolveHandle = f }

// Draw returns a value for the test's input called name, drawn from d — or from the
// distribution the configuration file (ConfigFile, in the package's directory) gives the
// input for this test, which overrides d (§4.1: the distribution "that best models the
// expected customer usage" lives in the configuration file). The value comes from the
// handle's source (see drawer) when the test runs under interleave; under plain go test, from
// a randomly seeded source. A configuration file that cannot be read, or whose distribution
// for name does not fit T, fails the test with the file and field.
func Draw[T Number](t TB, name string, d Dist[T]) T {
	if resolveHandle != nil {
		t = resolveHandle(t)
	}
	t.Helper()
	cfg, err := packageConfig()
	if err != nil {
		t.Fatalf("random.Draw(%q): %v", name, err)
	}
	test, _, _ := strings.Cut(t.Name(), "/")
	if spec, ok := cfg.Input(test, name); ok {
		if d, err = FromSpec[T](spec); err != nil {
			t.Fatalf("random.Draw(%q): %s: tests.%s.inputs.%s: %v", name, cfg.Path, test, name, err)
		}
	}
	if d.spec.Kind == "" {
		t.Fatalf("random.Draw(%q): the zero Dist: make one with NewUniform, NewGaussian, NewExponential or NewWeighted", name)
	}
	sample := func(r *rand.Rand) float64 { return d.spec.Sample(r, d.t.integer) }
	var v float64
	if dr, ok := t.(drawer); ok {
		v = dr.Draw(name, sample)
	} else {
		fallbackMu.Lock()
		v = sample(fallback)
		fallbackMu.Unlock()
	}
	return d.t.convert(v)
}

var (
	configOnce sync.Once
	config     *Config
	configErr  error

	fallbackMu sync.Mutex
	fallback   = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
)

// packageConfig is the configuration file of the test's package: tests run in their
// package's directory.
func packageConfig() (*Config, error) {
	configOnce.Do(func() {
		config, configErr = LoadConfig(".")
		if configErr != nil {
			configErr = fmt.Errorf("configuration: %w", configErr)
		}
	})
	return config, configErr
}
