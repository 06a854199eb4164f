// compose-check loads Compose files with compose-go, the loader of Docker Compose itself: the Compose
// Specification's schema, interpolation of ${VARIABLES} from the environment, extensions and anchors, and the
// checks between services (depends_on, volumes, networks). It prints the resolved project as JSON, or the
// loader's error on stderr with exit code 1.
//
//	go run . -f deploy/scale/compose.yml
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/compose-spec/compose-go/v2/cli"
)

func main() {
	var files multi
	flag.Var(&files, "f", "a Compose file (repeatable)")
	flag.Parse()
	if len(files) == 0 {
		fmt.Fprintln(os.Stderr, "usage: compose-check -f FILE [-f FILE ...]")
		os.Exit(2)
	}
	opts, err := cli.NewProjectOptions(files, cli.WithOsEnv, cli.WithName("compose-check"))
	if err == nil {
		var project interface{}
		project, err = opts.LoadProject(context.Background())
		if err == nil {
			err = json.NewEncoder(os.Stdout).Encode(project)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

type multi []string

func (m *multi) String() string     { return fmt.Sprint(*m) }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }
