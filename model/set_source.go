package model

// A source is what a Set needs of one of its sources: the events it
// reports now, and the list of Sets it wakes. It is the model's
// watch.Source. A Counter cannot grow methods (it has as many as a type
// may), so each kind of source has a small adapter.
type source interface {
	// poll returns the events the source reports now, on s's clock: In,
	// Out and Hup, whether asked for or not.
	poll(s *Set) Events
	// sets returns the list of Sets the source wakes, or nil for a
	// Deadline, which only its Set's clock wakes.
	sets() *setList
}

// sourceOf returns src as a source, known by its exact type as poll knows
// its sources, or false for anything else: nil, a nil pointer, a Source or
// DoneSource not made by its constructor, a value of any other type.
func sourceOf(src any) (source, bool) {
	switch x := src.(type) {
	case *Counter:
		return counterSource{x}, x != nil
	case *Source:
		return userSource{x}, x != nil && x.made
	case *Deadline:
		return deadlineSource{x}, x != nil
	case *DoneSource:
		return doneSource{x}, x != nil && x.made
	}
	return nil, false
}

// counterSource is a Counter as a source: an eventfd.
type counterSource struct{ c *Counter }

// poll is the Counter's Poll, with Hup once it is closed.
func (x counterSource) poll(*Set) Events {
	in, out := x.c.Poll()
	var ev Events
	if in {
		ev |= In
	}
	if out {
		ev |= Out
	}
	if x.c.closed {
		ev |= Hup
	}
	return ev
}

// sets returns the Sets the Counter is in.
func (x counterSource) sets() *setList { return &x.c.sets }

// A setList is what a source that wakes its Sets keeps of them: the
// Sets it is in, and the wakeups Mute holds back.
type setList struct {
	sets  []*Set // the Sets it is in
	muted bool   // Mute: the wakeups are held, not told
	held  Events // the events of the wakeups held since Mute
}

// wake tells the Sets of l of a wakeup of the source key with events ev,
// or holds the events while l is muted. A wakeup with no event is none.
func (l *setList) wake(key any, ev Events) {
	if ev &= In | Out | Hup; ev == 0 {
		return
	}
	if l.muted {
		l.held |= ev
		return
	}
	for _, s := range l.sets {
		s.wake(key, ev)
	}
}

// A Source models a poll.Source, a program's own source: the events its
// poll function reports, which a test sets, and its Notify. Make one with
// NewSource; the zero Source is refused by Add with ErrInvalid, as poll
// refuses a Source not made by NewSource.
//
// SetEvents changes what the poll function reports and wakes nothing.
// Notify is the wakeup. So a test can break the rule that a change is
// followed by its Notify, and see what a Set then misses:
//
//	poll                              model
//	NewSource(func() Events)          NewSource()
//	a change of what poll returns     SetEvents(ev)
//	Notify(ev)                        Notify(ev)
type Source struct {
	events Events
	made   bool
	list   setList // the Sets it is in
}

// NewSource returns a Source that reports no events.
func NewSource() *Source { return &Source{made: true} }

// SetEvents sets the events the Source's poll function reports from now
// on. Bits other than In, Out and Hup are kept, and ignored by the Sets
// as poll ignores them. It wakes no Set: call Notify for that.
func (s *Source) SetEvents(ev Events) { s.events = ev }

// Events returns the events the Source's poll function reports.
func (s *Source) Events() Events { return s.events }

// Notify models poll.Source.Notify: a wakeup of the Sets that hold s with
// the events ev. A registration that is armed and asks for one of them
// (Hup always counts) is queued. Bits other than In, Out and Hup are
// ignored, so a Notify(0) wakes nothing.
func (s *Source) Notify(ev Events) { s.list.wake(s, ev) }

// userSource is a Source as a source.
type userSource struct{ s *Source }

// poll returns the events the Source reports.
func (x userSource) poll(*Set) Events { return x.s.events & (In | Out | Hup) }

// sets returns the Sets the Source is in.
func (x userSource) sets() *setList { return &x.s.list }

// A DoneSource models a poll.Done: a source that reports In|Hup once its
// context has ended, and nothing before. Make one with NewDoneSource; the
// zero DoneSource is refused by Add with ErrInvalid, as poll refuses a
// Done not made by OnDone.
//
//	poll                              model
//	OnDone(ctx)                       NewDoneSource()
//	OnDone(ctx) of a ctx done already NewDoneSource(), then End()
//	ctx ends (its AfterFunc has run)  End()
//	Stop()                            Stop()
//
// The real Done learns of the end in a goroutine of its own, a little
// after ctx.Err() turns non-nil. A test calls End once that goroutine
// has run, for instance after testing/synctest's Wait.
type DoneSource struct {
	made    bool
	ended   bool
	stopped bool    // Stop kept End from happening
	list    setList // the Sets it is in
}

// NewDoneSource returns a DoneSource whose context has not ended.
func NewDoneSource() *DoneSource { return &DoneSource{made: true} }

// End models the end of the context. From then on the DoneSource reports
// In|Hup, and End wakes its Sets with In|Hup. It does nothing after Stop
// reported true, or after End.
func (d *DoneSource) End() {
	if d.ended || d.stopped {
		return
	}
	d.ended = true
	d.list.wake(d, In|Hup)
}

// Ended reports whether End has happened: whether the DoneSource reports
// In|Hup.
func (d *DoneSource) Ended() bool { return d.ended }

// Stop models poll.Done.Stop. It reports true, and keeps every later End
// from happening, if the context has not ended yet and Stop has not been
// called; it reports false otherwise.
func (d *DoneSource) Stop() bool {
	if d.ended || d.stopped {
		return false
	}
	d.stopped = true
	return true
}

// doneSource is a DoneSource as a source.
type doneSource struct{ d *DoneSource }

// poll reports In|Hup once the context has ended.
func (x doneSource) poll(*Set) Events {
	if x.d.ended {
		return In | Hup
	}
	return 0
}

// sets returns the Sets the DoneSource is in.
func (x doneSource) sets() *setList { return &x.d.list }
