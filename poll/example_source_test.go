package poll_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/evsync/evsync/poll"
)

// A Mailbox is a program's own type: a buffer of messages under a mutex.
// Its Source makes it a source of Sets, with the Source's two rules: its
// events function reports what holds now, and Put calls Notify after the
// change, with the mutex released.
type Mailbox struct {
	mu   sync.Mutex
	msgs []string
	src  *poll.Source
}

// NewMailbox returns an empty Mailbox.
func NewMailbox() *Mailbox {
	m := new(Mailbox)
	m.src = poll.NewSource(m.events)
	return m
}

// Source returns what to pass to a Set's Add, Modify and Remove.
func (m *Mailbox) Source() *poll.Source { return m.src }

// events reports In while a message waits.
func (m *Mailbox) events() poll.Events {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.msgs) > 0 {
		return poll.In
	}
	return 0
}

// Put leaves a message, then tells the Sets.
func (m *Mailbox) Put(msg string) {
	m.mu.Lock()
	m.msgs = append(m.msgs, msg)
	m.mu.Unlock()
	m.src.Notify(poll.In)
}

// TakeAll takes every message.
func (m *Mailbox) TakeAll() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	msgs := m.msgs
	m.msgs = nil
	return msgs
}

// One goroutine serves many mailboxes: a Wait reports those with mail.
func ExampleNewSource() {
	boxes := map[string]*Mailbox{"alice": NewMailbox(), "bob": NewMailbox()}
	set := poll.New[string]()
	defer set.Close()
	for name, m := range boxes {
		set.Add(m.Source(), name, poll.In, poll.Edge)
	}

	boxes["bob"].Put("hi")
	boxes["bob"].Put("lunch?")
	events, _ := set.Wait(context.Background(), nil, 8)
	for _, e := range events {
		fmt.Println(e.Key, boxes[e.Key].TakeAll())
	}
	// Output:
	// bob [hi lunch?]
}
