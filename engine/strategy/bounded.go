package strategy

// NewIPB returns iterative preemption bounding (SCTBench §2.3, §2.5 and §5, "Iterative
// Preemption Bounding (IPB) Phase"): every terminal schedule with 0 preemptions, then every
// one with exactly 1, and so on, never executing a schedule twice across bounds. A
// preemption is a switch away from a goroutine that is still enabled; the switch forced
// after a yield is not one (§3, "Busy-wait loops"). With max ≥ 0 the search stops after the
// schedules with max preemptions; max < 0 means no maximum.
func NewIPB(max int) *Systematic { return newSystematic("ipb", costPreemption, max) }

// NewIDB returns iterative delay bounding (SCTBench §2.4, §2.5): the same iteration, with
// the delays of the non-preemptive round-robin scheduler that considers goroutines in
// creation order starting with the most recently executing one. Scheduling goroutine t
// after schedule α costs
//
//	delays(α, t) = |{x : 0 ≤ x < distance(last(α), t) ∧ (last(α)+x) mod N ∈ enabled(α)}|,
//
// the number of enabled goroutines skipped on the way from last(α) to t. After a yield the
// yielding goroutine is not counted: the switch away from it is forced and free (§3). A data
// choice of alternative k costs k delays (the deterministic scheduler takes alternative 0).
// With max ≥ 0 the search stops after the schedules with max delays; max < 0 means no
// maximum.
func NewIDB(max int) *Systematic { return newSystematic("idb", costDelay, max) }
