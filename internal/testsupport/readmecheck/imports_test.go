package readmecheck_test

// This test links every package of the table that is not the standard
// library's. So go test compiles them, with this test's flags, before it
// runs the test. The go list -export of Check then finds them in the
// build cache: under the README's go test -race, the -race builds that
// kube's and bench's tests need as well. Without these imports, this
// test would start at once and compile client-go and controller-runtime
// beside go test, which compiles them too.
import (
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/evsync/evsync/internal/testsupport/readmecheck"

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

// TestEveryPackageOfTheTableIsLinked: a row added to packages.go must be
// imported above too, or a first run compiles its package twice.
func TestEveryPackageOfTheTableIsLinked(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "imports_test.go", nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	linked := map[string]bool{}
	for _, spec := range f.Imports {
		if spec.Name != nil && spec.Name.Name == "_" {
			linked[strings.Trim(spec.Path.Value, `"`)] = true
		}
	}
	want := 0
	for name, path := range readmecheck.Packages {
		first, _, _ := strings.Cut(path, "/")
		if !strings.Contains(first, ".") {
			continue // the standard library's: cheap, and most are linked anyway
		}
		want++
		if !linked[path] {
			t.Errorf("packages.go's %s (%s) is not imported in imports_test.go", name, path)
		}
	}
	if want < 15 || len(linked) != want {
		t.Errorf("imports_test.go imports %d packages for %d of the table's not in the standard library, want them equal and at least 15", len(linked), want)
	}
}
