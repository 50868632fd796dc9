package release

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// File is one file of an archive.
type File struct {
	Name string // its path inside the archive
	Mode os.FileMode
	Data []byte
}

// ArchiveName is the archive of version's binary for t: a zip for Windows, whose users
// open zips, a tar.gz elsewhere, which keeps the binary's executable bit.
func ArchiveName(version string, t Target) string {
	ext := ".tar.gz"
	if t.OS == "windows" {
		ext = ".zip"
	}
	return fmt.Sprintf("storecheck_%s_%s_%s%s", strings.TrimPrefix(version, "v"), t.OS, t.Arch, ext)
}

// WriteArchive writes files to path as a tar.gz or a zip (by path's extension). Every
// entry has the same owner (0), the time epoch and its place in name order, and the
// compressors record no name or time: the bytes depend on the files alone.
func WriteArchive(path string, files []File, epoch time.Time) error {
	sorted := append([]File(nil), files...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	var buf bytes.Buffer
	var err error
	if strings.HasSuffix(path, ".zip") {
		err = writeZip(&buf, sorted, epoch)
	} else {
		err = writeTarGz(&buf, sorted, epoch)
	}
	if err != nil {
		return fmt.Errorf("release: %s: %w", path, err)
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

func writeTarGz(w io.Writer, files []File, epoch time.Time) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(zw)
	for _, f := range files {
		h := &tar.Header{Typeflag: tar.TypeReg, Name: f.Name, Mode: int64(f.Mode.Perm()), Size: int64(len(f.Data)),
			ModTime: epoch, Format: tar.FormatUSTAR}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if _, err := tw.Write(f.Data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}

func writeZip(w io.Writer, files []File, epoch time.Time) error {
	zw := zip.NewWriter(w)
	for _, f := range files {
		h := &zip.FileHeader{Name: f.Name, Method: zip.Deflate, Modified: epoch}
		h.SetMode(f.Mode)
		fw, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := fw.Write(f.Data); err != nil {
			return err
		}
	}
	return zw.Close()
}

// SumsFile is the name of the checksums file, in the format `sha256sum -c` reads.
const SumsFile = "SHA256SUMS"

// WriteSums writes dir/SHA256SUMS: the SHA-256 of each named file of dir, in name order.
func WriteSums(dir string, names []string) error {
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	var b strings.Builder
	for _, n := range sorted {
		data, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return fmt.Errorf("release: %w", err)
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sum[:]), n)
	}
	return os.WriteFile(filepath.Join(dir, SumsFile), []byte(b.String()), 0o644)
}
