// Package fsbench_bad is SCTBench benchmark 15, CS.fsbench_bad.
//
// The original is a file-system benchmark: 27 threads each pick inode
// tid%32, lock that inode and, if it has no block yet, scan up to 13 blocks
// (each under its own lock) for a free one and assign it. The inode locks
// and the inode index are sized for 26 blocks, so thread 26 computes inode
// 26, out of the arrays' bounds, and its bounds assertion fails in every
// interleaving (the study: 100% buggy). 28 threads: main and 27 workers.
//
// Kept as is, so this test fails natively too. The bounds assertion is kept
// as an assertion (reported, and the thread stops) rather than left to
// Go's index check, as the original asserts before indexing.
package fsbench_bad

import (
	"errors"
	"fmt"
	"sync"
)

const (
	numBlocks  = 26
	numInode   = 32
	numThreads = 27
)

type fs struct {
	locki [numBlocks]sync.Mutex
	lockb [numBlocks]sync.Mutex
	busy  [numBlocks]bool
	inode [numInode]int
}

func (f *fs) thread(tid int) error {
	i := tid % numInode
	if i < 0 || i >= numBlocks {
		return fmt.Errorf("thread %d: inode %d out of the lock array's bounds", tid, i)
	}
	f.locki[i].Lock()
	if f.inode[i] == 0 {
		b := (i * 2) % numBlocks
		for j := 0; j < numBlocks/2; j++ {
			f.lockb[b].Lock()
			if !f.busy[b] {
				f.busy[b] = true
				f.inode[i] = b + 1
				f.lockb[b].Unlock()
				break
			}
			f.lockb[b].Unlock()
			b = (b + 1) % numBlocks
		}
	}
	f.locki[i].Unlock()
	return nil
}

// Run starts the workers, joins them and returns their assertion failures.
func Run() error {
	f := &fs{}
	errs := make([]error, numThreads)
	var wg sync.WaitGroup
	wg.Add(numThreads)
	for i := 0; i < numThreads; i++ {
		go func(tid int) { defer wg.Done(); errs[tid] = f.thread(tid) }(i)
	}
	wg.Wait()
	return errors.Join(errs...)
}
