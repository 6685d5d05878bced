// Package unbuffered hands jobs to a worker goroutine and back through an
// unbuffered channel alone.
//
// Both directions of an unbuffered channel's synchronization are used:
//
//   - A send happens before the corresponding receive completes: the client
//     writes job.In before sending the job, and the worker reads it after
//     receiving it.
//   - A receive from an unbuffered channel happens before the corresponding
//     send completes: the worker writes job.Out and only then receives the
//     next job, so once the client's next send has completed, the previous
//     job's Out is written and the client may read it. The last job is
//     followed by a nil, which tells the worker to stop.
package unbuffered

// Job is a unit of work; the worker owns it from the moment it receives it
// until it receives the next job.
type Job struct {
	In  int
	Out int
}

// Worker squares the jobs it receives on jobs until it receives nil.
func Worker(jobs <-chan *Job) {
	for {
		job := <-jobs
		if job == nil {
			return
		}
		job.Out = job.In * job.In
	}
}
