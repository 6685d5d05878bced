// Package merge (directory select; select is a keyword) merges batches
// from two producers with a select statement; sending a batch hands it
// over to the receiver.
//
// Each producer builds its Batch with plain writes and sends a pointer to
// it on its own channel (one unbuffered, one buffered); Collect selects
// over both channels and reads each batch it receives. The send happens
// before the receive in the chosen select case completes, so the reads are
// ordered after the producer's writes by the channel operations in the
// select alone. A producer does not touch its batch after sending it.
package merge

// Batch is a group of values; whoever holds the pointer owns it.
type Batch struct {
	Source string
	Values []int
}

// Produce builds a batch of values and hands it over on out.
func Produce(out chan<- *Batch, source string, values ...int) {
	b := new(Batch)
	b.Source = source
	for _, v := range values {
		b.Values = append(b.Values, v)
	}
	out <- b
}

// Collect receives one batch from each of a and b, in whichever order they
// arrive, and returns the sum of their values and their sources in arrival
// order.
func Collect(a, b <-chan *Batch) (sum int, sources []string) {
	for a != nil || b != nil {
		var batch *Batch
		select {
		case batch = <-a:
			a = nil
		case batch = <-b:
			b = nil
		}
		sources = append(sources, batch.Source)
		for _, v := range batch.Values {
			sum += v
		}
	}
	return sum, sources
}
