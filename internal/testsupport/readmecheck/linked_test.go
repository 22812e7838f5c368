package readmecheck_test

// This file links every package of the table (packages.go), so go test
// compiles them, with this test's flags, before it runs the test. The go
// list -export of Check then finds them all in the build cache: under the
// README's go test -race, the -race builds that kube's and bench's tests
// need too. Without these imports, this test would start at once and
// compile client-go and controller-runtime beside go test, which compiles
// them too. Only imports go here: TestEveryPackageOfTheTableIsLinked
// reads them.

import (
	_ "context"
	_ "errors"
	_ "fmt"
	_ "log"
	_ "os"
	_ "slices"
	_ "strings"
	_ "sync"
	_ "testing"
	_ "testing/synctest"
	_ "time"

	_ "github.com/evsync/evsync/coalesce"
	_ "github.com/evsync/evsync/kube"
	_ "github.com/evsync/evsync/model"
	_ "github.com/evsync/evsync/poll"
	_ "github.com/evsync/evsync/readyq"
	_ "github.com/evsync/evsync/semaphore"
	_ "github.com/evsync/evsync/signal"
	_ "github.com/evsync/evsync/workqueue"
	_ "k8s.io/apimachinery/pkg/apis/meta/v1"
	_ "k8s.io/apimachinery/pkg/types"
	_ "k8s.io/client-go/util/workqueue"
	_ "k8s.io/utils/clock/testing"
	_ "sigs.k8s.io/controller-runtime"
	_ "sigs.k8s.io/controller-runtime/pkg/client"
	_ "sigs.k8s.io/controller-runtime/pkg/controller"
	_ "sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	_ "sigs.k8s.io/controller-runtime/pkg/event"
	_ "sigs.k8s.io/controller-runtime/pkg/handler"
	_ "sigs.k8s.io/controller-runtime/pkg/reconcile"
	_ "sigs.k8s.io/controller-runtime/pkg/source"
)
