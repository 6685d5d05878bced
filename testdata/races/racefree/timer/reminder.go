// Package timer runs work after a delay with time.AfterFunc and
// time.Timer.
//
// SendLater fills in a message and then starts a timer with
// time.AfterFunc; the callback, which runs in its own goroutine, reads the
// message. A Reminder is created with a stopped timer; Schedule writes the
// text and then starts the timer with Reset, and Wait receives from the
// timer's channel and then reads the text. Starting a timer happens before
// it fires (its callback starts, or its channel is sent on), so in both
// cases the read is ordered after the write by the timer alone: the
// callback goroutine is started by the runtime, not by the writer, and the
// goroutine calling Wait was started before the text was written.
package timer

import "time"

// Message is delivered after a delay.
type Message struct {
	To   string
	Body string
}

// SendLater calls deliver with a message for to after d, in the timer's
// own goroutine.
func SendLater(d time.Duration, to, body string, deliver func(*Message)) *time.Timer {
	m := new(Message)
	m.To = to
	m.Body = body
	return time.AfterFunc(d, func() {
		deliver(m)
	})
}

// Reminder shows a text when its timer fires.
type Reminder struct {
	timer *time.Timer
	text  string
}

// NewReminder returns a reminder that is not scheduled.
func NewReminder() *Reminder {
	r := &Reminder{timer: time.NewTimer(time.Hour)}
	r.timer.Stop()
	return r
}

// Schedule sets the text and starts the timer; it must be called once.
func (r *Reminder) Schedule(d time.Duration, text string) {
	r.text = text
	r.timer.Reset(d)
}

// Wait waits until the timer fires and returns the text.
func (r *Reminder) Wait() string {
	<-r.timer.C
	return r.text
}
