package readmecheck

// packages maps the name a fragment uses before a dot to the package it
// imports. A fragment that names a package missing here fails with
// "undefined: name": add the package.
var packages = map[string]string{
	// evsync
	"coalesce":  "github.com/evsync/evsync/coalesce",
	"kube":      "github.com/evsync/evsync/kube",
	"model":     "github.com/evsync/evsync/model",
	"poll":      "github.com/evsync/evsync/poll",
	"readyq":    "github.com/evsync/evsync/readyq",
	"semaphore": "github.com/evsync/evsync/semaphore",
	"signal":    "github.com/evsync/evsync/signal",
	"workqueue": "github.com/evsync/evsync/workqueue",

	// controller-runtime, client-go and apimachinery, as kube's examples
	// name them
	"client":        "sigs.k8s.io/controller-runtime/pkg/client",
	"controller":    "sigs.k8s.io/controller-runtime/pkg/controller",
	"ctrl":          "sigs.k8s.io/controller-runtime",
	"event":         "sigs.k8s.io/controller-runtime/pkg/event",
	"handler":       "sigs.k8s.io/controller-runtime/pkg/handler",
	"metav1":        "k8s.io/apimachinery/pkg/apis/meta/v1",
	"priorityqueue": "sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue",
	"reconcile":     "sigs.k8s.io/controller-runtime/pkg/reconcile",
	"source":        "sigs.k8s.io/controller-runtime/pkg/source",
	"types":         "k8s.io/apimachinery/pkg/types",
	"clientgo":      "k8s.io/client-go/util/workqueue", // kube's name for it, beside evsync's workqueue

	// k8s.io/utils's fake clocks, by the name client-go's tests give them
	"testingclock": "k8s.io/utils/clock/testing",

	// the standard library
	"context":  "context",
	"errors":   "errors",
	"fmt":      "fmt",
	"log":      "log",
	"os":       "os",
	"slices":   "slices",
	"strings":  "strings",
	"sync":     "sync",
	"synctest": "testing/synctest",
	"testing":  "testing",
	"time":     "time",
}
