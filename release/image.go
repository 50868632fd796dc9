package release

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

//go:embed Dockerfile
var dockerfile []byte

// ImageTag is the tag of version's image: Docker tags take no "+".
func ImageTag(version string) string { return strings.ReplaceAll(version, "+", "-") }

// BuildImage builds the image ref (name:tag) from bin, a linux binary of the machine's
// architecture, with docker build.
func BuildImage(ctx context.Context, bin, ref string) error {
	dir, err := os.MkdirTemp("", "storecheck-image-")
	if err != nil {
		return fmt.Errorf("release: %w", err)
	}
	defer os.RemoveAll(dir)
	data, err := os.ReadFile(bin)
	if err != nil {
		return fmt.Errorf("release: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "storecheck"), data, 0o755); err != nil {
		return fmt.Errorf("release: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), dockerfile, 0o644); err != nil {
		return fmt.Errorf("release: %w", err)
	}
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		return fmt.Errorf("release: %w", err)
	}
	// Mkdir's mode passes through the umask; the sticky world-writable mode is set after.
	if err := os.Chmod(tmp, os.ModeSticky|0o777); err != nil {
		return fmt.Errorf("release: %w", err)
	}
	cmd := exec.CommandContext(ctx, "docker", "build", "--quiet", "--tag", ref, dir)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("release: docker build %s: %w\n%s", ref, err, msg)
	}
	return nil
}
