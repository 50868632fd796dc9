// Command dist builds a storecheck release from the checkout it runs in (`make dist`):
// static binaries for every platform, their archives and SHA256SUMS, the container image
// and the npm packages, into dist/. The same commit gives the same archives and sums.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"

	"github.com/storecheck/storecheck/release"
)

func main() {
	out := flag.String("o", "dist", "the output `DIR`")
	targets := flag.String("targets", "all", "the platforms, comma-separated OS/ARCH, or all: "+fmt.Sprint(release.Targets))
	image := flag.String("image", "storecheck/storecheck", "the image's `NAME` (tagged with the version); empty: no image")
	npm := flag.Bool("npm", true, "generate the npm packages and pack them")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	opts := release.Options{Out: *out, Image: *image, NPM: *npm, Targets: release.Targets}
	if *targets != "all" {
		opts.Targets = nil
		for _, s := range strings.Split(*targets, ",") {
			t, err := release.ParseTarget(strings.TrimSpace(s))
			if err != nil {
				fail(err)
			}
			opts.Targets = append(opts.Targets, t)
		}
	}
	// What this machine lacks is a failure under CI, a note elsewhere.
	if opts.Image != "" && exec.Command("docker", "info").Run() != nil {
		opts.Image = ""
		missing("no docker engine answers: no image")
	}
	if opts.NPM {
		if _, err := exec.LookPath("npm"); err != nil {
			opts.NPM = false
			missing("npm is missing: no npm packages")
		}
	}
	src, err := release.OpenSource(ctx, ".")
	if err != nil {
		fail(err)
	}
	res, err := release.Dist(ctx, src, opts)
	if err != nil {
		fail(err)
	}
	fmt.Printf("storecheck %s (files dated %s)\n", res.Version, src.Epoch.Format("2006-01-02 15:04:05 UTC"))
	for _, a := range res.Archives {
		fmt.Println("archive ", a)
	}
	fmt.Println("sums    ", res.Sums)
	if res.Image != "" {
		fmt.Println("image   ", res.Image)
	}
	for _, t := range res.Tarballs {
		fmt.Println("npm     ", t)
	}
}

func missing(msg string) {
	if os.Getenv("CI") == "true" {
		fail(errors.New(msg))
	}
	fmt.Fprintln(os.Stderr, "dist:", msg)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "dist:", err)
	os.Exit(1)
}
