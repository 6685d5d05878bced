// Package stringbuffer_jdk1_4 is SCTBench benchmark 2, CB.stringbuffer-jdk1.4.
//
// The original is a C++ model of java.lang.StringBuffer from JDK 1.4, every
// method synchronized on the buffer's own mutex. append(StringBuffer sb)
// holds its own lock, asks sb for its length (locking sb), and then copies
// that many characters with sb.getChars (locking sb again). Between the two
// calls another thread can shorten sb, so getChars gets a stale length, its
// bounds check fails and the original asserts (Java throws
// StringIndexOutOfBoundsException). The harness: a second thread erases the
// three characters of a shared buffer "abc" and appends "abc" again, while
// main appends the shared buffer to a new one. Two threads: main and the
// eraser.
//
// Simplified: only the methods the harness uses are kept; the failed bounds
// check is returned as an error instead of aborting, and main joins the
// eraser (the original returns without joining).
package stringbuffer_jdk1_4

import (
	"fmt"
	"sync"
)

const integerMaxValue = 0x7fffffff

// StringBuffer is a growable character buffer whose methods are all
// synchronized on its mutex.
type StringBuffer struct {
	mu    sync.Mutex
	value []byte // len(value) is the capacity
	count int
}

// New returns an empty buffer of capacity 16.
func New() *StringBuffer { return &StringBuffer{value: make([]byte, 16)} }

// NewString returns a buffer holding s.
func NewString(s string) *StringBuffer {
	sb := &StringBuffer{value: make([]byte, len(s)+16)}
	sb.AppendString(s)
	return sb
}

// Length returns the number of characters in the buffer.
func (sb *StringBuffer) Length() int {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	return sb.count
}

// GetChars copies the characters [srcBegin, srcEnd) into dst at dstBegin.
func (sb *StringBuffer) GetChars(srcBegin, srcEnd int, dst []byte, dstBegin int) error {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if srcBegin < 0 {
		return fmt.Errorf("string index out of range: %d", srcBegin)
	}
	if srcEnd < 0 || srcEnd > sb.count {
		return fmt.Errorf("string index out of range: %d (length %d)", srcEnd, sb.count)
	}
	if srcBegin > srcEnd {
		return fmt.Errorf("string index out of range: %d", srcEnd-srcBegin)
	}
	copy(dst[dstBegin:], sb.value[srcBegin:srcEnd])
	return nil
}

// AppendBuffer appends the contents of other; a nil other appends "null".
func (sb *StringBuffer) AppendBuffer(other *StringBuffer) error {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if other == nil {
		other = NewString("null")
	}
	n := other.Length()
	newCount := sb.count + n
	if newCount > len(sb.value) {
		sb.expandCapacity(newCount)
	}
	if err := other.GetChars(0, n, sb.value, sb.count); err != nil {
		return err
	}
	sb.count = newCount
	return nil
}

// AppendString appends s.
func (sb *StringBuffer) AppendString(s string) {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	newCount := sb.count + len(s)
	if newCount > len(sb.value) {
		sb.expandCapacity(newCount)
	}
	copy(sb.value[sb.count:], s)
	sb.count = newCount
}

// Erase removes the characters [start, end), end clipped to the length.
func (sb *StringBuffer) Erase(start, end int) error {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if start < 0 {
		return fmt.Errorf("string index out of range: %d", start)
	}
	if end > sb.count {
		end = sb.count
	}
	if start > end {
		return fmt.Errorf("string index out of range: %d > %d", start, end)
	}
	if n := end - start; n > 0 {
		copy(sb.value[start:], sb.value[end:sb.count])
		sb.count -= n
	}
	return nil
}

// String returns the contents.
func (sb *StringBuffer) String() string {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	return string(sb.value[:sb.count])
}

func (sb *StringBuffer) expandCapacity(minimumCapacity int) {
	newCapacity := (len(sb.value) + 1) * 2
	if newCapacity < 0 {
		newCapacity = integerMaxValue
	} else if minimumCapacity > newCapacity {
		newCapacity = minimumCapacity
	}
	newValue := make([]byte, newCapacity)
	copy(newValue, sb.value[:sb.count])
	sb.value = newValue
}

// Run is the harness: one thread erases and refills the shared buffer while
// main appends it to a new buffer. It returns main's failed bounds check.
func Run() error {
	buffer := NewString("abc")
	done := make(chan struct{})
	go func() {
		defer close(done)
		buffer.Erase(0, 3)
		buffer.AppendString("abc")
	}()
	sb := New()
	err := sb.AppendBuffer(buffer)
	<-done
	return err
}
