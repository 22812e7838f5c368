module github.com/evsync/evsync

go 1.26.0

require (
	github.com/anishathalye/porcupine v1.3.1
	go.uber.org/goleak v1.3.0
	golang.org/x/sync v0.25.0
	golang.org/x/sys v0.50.0
	pgregory.net/rapid v1.3.0
)

require golang.org/x/time v0.15.0
