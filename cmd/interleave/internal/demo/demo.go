// Package demo holds example programs written against the engine's API, bundled with the
// interleave binary so that `interleave demo` finds a real bug on a fresh machine without
// building anything else. Each program is an ordinary concurrent Go function whose every
// visible operation goes through the engine, the way the instrumenter rewrites user code.
package demo

import (
	"sort"
	"sync"

	"github.com/interleave-dev/interleave/engine"
)

// Package is the import path recorded in the schedule files of the demos.
const Package = "github.com/interleave-dev/interleave/cmd/interleave/internal/demo"

// Program is a bundled example.
type Program struct {
	Name        string
	Description string
	Body        func(t *engine.T)
}

var programs = map[string]Program{}

func register(p Program) { programs[p.Name] = p }

// Lookup returns the program called name.
func Lookup(name string) (Program, bool) {
	p, ok := programs[name]
	return p, ok
}

// Names lists the bundled programs.
func Names() []string {
	var out []string
	for n := range programs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// account is a bank account whose balance is guarded by a mutex — but Withdraw checks the
// balance in one critical section and updates it in another (check-then-act): two concurrent
// withdrawals can both see enough money, and both succeed.
type account struct {
	mu      sync.Mutex
	balance int
}

func (a *account) Balance() int {
	engine.Lock(&a.mu, "demo.go:53:2")
	defer engine.Unlock(&a.mu, "demo.go:54:8")
	return a.balance
}

func (a *account) Withdraw(n int) bool {
	if a.Balance() < n {
		return false
	}
	engine.Lock(&a.mu, "demo.go:62:2")
	a.balance -= n
	engine.Unlock(&a.mu, "demo.go:64:2")
	return true
}

func init() {
	register(Program{
		Name:        "bank",
		Description: "two concurrent withdrawals from one account: a check-then-act race lets both succeed and the account is overdrawn",
		Body: func(t *engine.T) {
			acct := &account{balance: 100}
			var wg sync.WaitGroup
			var ok [2]bool
			for i := range ok {
				engine.WGAdd(&wg, 1, "demo.go:77:5")
				engine.Go(func() {
					defer engine.WGDone(&wg, "demo.go:79:12")
					ok[i] = acct.Withdraw(60)
				}, "demo.go:78:5")
			}
			engine.WGWait(&wg, "demo.go:83:4")
			if ok[0] && ok[1] {
				t.Errorf("both withdrawals of 60 succeeded; balance = %d", acct.Balance())
			}
		},
	})
	register(Program{
		Name:        "philosophers",
		Description: "three dining philosophers, each taking the left fork then the right: a lock-order cycle deadlocks",
		Body: func(t *engine.T) {
			forks := make([]sync.Mutex, 3)
			var wg sync.WaitGroup
			for i := range forks {
				left, right := &forks[i], &forks[(i+1)%len(forks)]
				engine.WGAdd(&wg, 1, "demo.go:97:5")
				engine.Go(func() {
					defer engine.WGDone(&wg, "demo.go:99:12")
					engine.Lock(left, "demo.go:100:6")
					engine.Lock(right, "demo.go:101:6")
					engine.Unlock(right, "demo.go:102:6")
					engine.Unlock(left, "demo.go:103:6")
				}, "demo.go:98:5")
			}
			engine.WGWait(&wg, "demo.go:106:4")
		},
	})
}
