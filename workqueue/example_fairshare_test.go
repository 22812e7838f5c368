package workqueue_test

import (
	"fmt"
	"strings"

	"github.com/evsync/evsync/workqueue"
)

// A multi-cluster controller is fair first across clusters, then across
// the namespaces of each cluster. The cluster "prod" has weight 2: each
// of its turns is two hand-outs, shared by its namespaces in turn.
func ExampleFairShare() {
	q := workqueue.NewWithConfig(workqueue.Config[string]{
		FairShare: workqueue.FairShare[string]{
			Dims: 2,
			Key:  func(key string, dim int) string { return strings.Split(key, "/")[dim] }, // cluster/namespace/name
			Weight: func(dim int, key string) int {
				if dim == 0 && key == "prod" {
					return 2
				}
				return 1
			},
		},
	})
	for _, k := range []string{"prod/a/1", "prod/a/2", "prod/a/3", "prod/b/1", "dev/a/1", "dev/a/2"} {
		q.Add(k)
	}
	fmt.Println(q.TryTake(10))
	// Output:
	// [prod/a/1 prod/b/1 dev/a/1 prod/a/2 prod/a/3 dev/a/2]
}
