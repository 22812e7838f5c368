// Package hooks is the one mechanism behind the window tests. A package
// marks each narrow window of its code with a call hook(p), naming the
// window by a point of its own (a small integer type). In a build with
// the evsynchooks tag, its hook calls Run on a Site, and a test registers
// a function with Set. Run calls it on the goroutine that reached the
// point, so the test can stop that goroutine there and run the other
// side.
//
// In a normal build there is no Site: each package's hook is an empty
// function of its own, which costs 0 in the inliner's budget. An empty
// generic method costs more (a Site[P] with an empty Run cost 6 per mark,
// which pushed readyq's lock over the budget), so the untagged build
// leaves this package out.
//
// A package keeps its points, its empty hook (hook.go), and, in hook_on.go,
// a variable of type Site, a hook that calls Run and a SetHook that calls
// Set.
package hooks

// One is the point type of a site with a single window, whose tests set
// their function with SetFunc.
type One uint8
