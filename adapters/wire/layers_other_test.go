//go:build !linux

package wire_test

import (
	"io"
	"os"
)

var spinReader func(*os.File) io.Reader
