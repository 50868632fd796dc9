package release

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// Options say what Dist builds.
type Options struct {
	// Out is the directory written: bin/OS_ARCH/, the archives and SHA256SUMS, npm/.
	Out     string
	Targets []Target
	// Image, when not empty, is the name of the image built from the linux binary of
	// the machine's architecture (which Targets must then hold), tagged with the version.
	Image string
	// NPM generates the npm packages and packs them with npm pack.
	NPM bool
}

// Result is what Dist wrote.
type Result struct {
	Version  string
	Binaries map[Target]string
	Archives []string // paths, in Targets' order
	Sums     string   // the SHA256SUMS file's path
	Image    string   // name:tag, when built
	Tarballs []string // npm pack's tarballs, the main package's first
}

// Dist builds a release of the checkout src into opts.Out.
func Dist(ctx context.Context, src Source, opts Options) (Result, error) {
	res := Result{Binaries: map[Target]string{}}
	if err := os.MkdirAll(opts.Out, 0o755); err != nil {
		return res, fmt.Errorf("release: %w", err)
	}
	for _, t := range opts.Targets {
		bin, err := Build(ctx, src, t, filepath.Join(opts.Out, "bin"))
		if err != nil {
			return res, err
		}
		res.Binaries[t] = bin
		if res.Version == "" {
			if res.Version, err = Version(bin); err != nil {
				return res, err
			}
		}
	}
	if err := archives(src, opts, &res); err != nil {
		return res, err
	}
	if opts.Image != "" {
		host := Target{"linux", runtime.GOARCH}
		bin, ok := res.Binaries[host]
		if !ok {
			return res, fmt.Errorf("%w: the image needs the %s binary", ErrTarget, host)
		}
		res.Image = opts.Image + ":" + ImageTag(res.Version)
		if err := BuildImage(ctx, bin, res.Image); err != nil {
			return res, err
		}
	}
	if opts.NPM {
		dirs, err := WriteNPM(filepath.Join(opts.Out, "npm"), res.Version, res.Binaries)
		if err != nil {
			return res, err
		}
		if res.Tarballs, err = Pack(ctx, filepath.Join(opts.Out, "npm"), dirs); err != nil {
			return res, err
		}
	}
	return res, nil
}

// archives writes one archive per binary, with the README, and their SHA256SUMS.
func archives(src Source, opts Options, res *Result) error {
	readme, err := os.ReadFile(filepath.Join(src.Dir, "README.md"))
	if err != nil {
		return fmt.Errorf("release: %w", err)
	}
	var names []string
	for _, t := range opts.Targets {
		data, err := os.ReadFile(res.Binaries[t])
		if err != nil {
			return fmt.Errorf("release: %w", err)
		}
		name := ArchiveName(res.Version, t)
		path := filepath.Join(opts.Out, name)
		files := []File{{Name: t.Exe(), Mode: 0o755, Data: data}, {Name: "README.md", Mode: 0o644, Data: readme}}
		if err := WriteArchive(path, files, src.Epoch); err != nil {
			return err
		}
		names = append(names, name)
		res.Archives = append(res.Archives, path)
	}
	res.Sums = filepath.Join(opts.Out, SumsFile)
	return WriteSums(opts.Out, names)
}
